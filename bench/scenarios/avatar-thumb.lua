-- GET /media/avatars/{name}: the 100 px renditions (what a feed's rows show), as avatar.lua.
rendition = 2
dofile(os.getenv("BENCH_LUA") .. "/avatar.lua")
