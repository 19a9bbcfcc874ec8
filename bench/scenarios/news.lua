-- GET /v1/feed/news: likes, comments and follows aimed at each of many users.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens = lines("tokens.txt")
   for k = 0, #tokens - 1 do
      requests[#requests + 1] = get("/v1/feed/news?limit=20", pick(tokens, spread(k)))
   end
end
