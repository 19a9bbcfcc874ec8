-- POST /v1/videos/{id}/comments by many users on many videos.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens, videos = lines("tokens.txt"), lines("videos.txt")
   for k = 0, math.max(#tokens, #videos) * 2 - 1 do
      local s = spread(k)
      local body = '{"content":"Bench comment ' .. s .. ' – quelle montée !"}'
      requests[#requests + 1] = send("POST", "/v1/videos/" .. pick(videos, s * 31) .. "/comments", pick(tokens, s), body)
   end
end
