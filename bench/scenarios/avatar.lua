-- GET /media/avatars/{name}: the 400 px renditions of the users prepare.py gave pictures
-- (avatars.txt), without a session, as an image loader fetches them the first time (no
-- If-None-Match): the bytes come from the server's picture cache.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local avatars = lines("avatars.txt")
   for k = 0, #avatars * 2 - 1 do
      requests[#requests + 1] = get("/media/avatars/" .. words(pick(avatars, spread(k)))[1])
   end
end
