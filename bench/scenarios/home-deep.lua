-- GET /v1/feed/home?cursor=...: page 50 of each user's home feed (cursors walked beforehand).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local deep = lines("deep.txt")
   for k = 0, #deep - 1 do
      local w = words(pick(deep, spread(k)))
      requests[#requests + 1] = get("/v1/feed/home?limit=20&cursor=" .. w[2], w[1])
   end
end
