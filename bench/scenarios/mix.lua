-- 70% reads (video by id and home feed, half each), 20% like/unlike, 10% comments.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens, videos = lines("tokens.txt"), lines("videos.txt")
   local likes = 0
   for k = 0, math.max(#tokens, #videos) * 2 - 1 do
      local s = spread(k)
      local token, video = pick(tokens, s), "/v1/videos/" .. pick(videos, s * 31)
      local slot = k % 10
      if slot < 7 then
         requests[#requests + 1] = (slot % 2 == 0) and get(video, token) or get("/v1/feed/home?limit=20", token)
      elseif slot < 9 then
         -- Alternates like and unlike of one pair over two consecutive like slots.
         local pair = math.floor(likes / 2)
         local lp = spread(pair + 100003)
         requests[#requests + 1] = send(likes % 2 == 0 and "PUT" or "DELETE",
            "/v1/videos/" .. pick(videos, lp * 31) .. "/like", pick(tokens, lp))
         likes = likes + 1
      else
         requests[#requests + 1] = send("POST", video .. "/comments", token, '{"content":"Mixed bench comment ' .. s .. '"}')
      end
   end
end
