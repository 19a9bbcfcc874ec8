-- GET /v1/videos/{id} measured while uploads.lua runs beside it (run.sh starts both): do
-- four clients uploading photos slow the reads down?
dofile(os.getenv("BENCH_LUA") .. "/video-by-id.lua")
