-- GET /v1/videos/{id}: many videos, many users' tokens.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens, videos = lines("tokens.txt"), lines("videos.txt")
   for k = 0, math.max(#tokens, #videos) * 2 - 1 do
      local s = spread(k)
      requests[#requests + 1] = get("/v1/videos/" .. pick(videos, s * 31), pick(tokens, s))
   end
end
