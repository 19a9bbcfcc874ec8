-- GET /v/{id}: a video's public page (serve --public-web), anonymous, many videos.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local videos = lines("videos.txt")
   for k = 0, #videos * 2 - 1 do
      requests[#requests + 1] = get("/v/" .. pick(videos, spread(k) * 31), nil)
   end
end
