-- GET /media/avatars/{name}: the 100 px renditions (what a feed's rows show), as avatar.lua.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local avatars = lines("avatars.txt")
   for k = 0, #avatars * 2 - 1 do
      requests[#requests + 1] = get("/media/avatars/" .. words(pick(avatars, spread(k)))[2])
   end
end
