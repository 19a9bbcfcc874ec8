-- PUT then DELETE /v1/videos/{id}/like for the same (user, video) pair; each is one write.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens, videos = lines("tokens.txt"), lines("videos.txt")
   for k = 0, math.max(#tokens, #videos) * 2 - 1 do
      local s = spread(k)
      local path, token = "/v1/videos/" .. pick(videos, s * 31) .. "/like", pick(tokens, s)
      requests[#requests + 1] = send("PUT", path, token)
      requests[#requests + 1] = send("DELETE", path, token)
   end
end
