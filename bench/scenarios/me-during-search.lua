-- GET /v1/users/me measured while search-paced.lua runs beside it (run.sh starts both):
-- does a search slow everything else down?
dofile(os.getenv("BENCH_LUA") .. "/me.lua")
