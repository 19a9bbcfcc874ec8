-- GET /media/avatars/{name}: the 400 px renditions of the users prepare.py gave pictures
-- (avatars.txt: each line the 400 px name, then the 100 px one), without a session, as an image
-- loader fetches them the first time (no If-None-Match): the bytes come from the server's
-- picture cache. avatar-thumb.lua sets `rendition = 2` first, for the 100 px ones.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local column = rendition or 1
function init(args)
   local avatars = lines("avatars.txt")
   for k = 0, #avatars * 2 - 1 do
      requests[#requests + 1] = get("/media/avatars/" .. words(pick(avatars, spread(k)))[column])
   end
end
