-- GET /v1/feed/home (first page, 20 videos), for the users whose feeds home-deep pages through.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local deep = lines("deep.txt")
   for k = 0, #deep - 1 do
      requests[#requests + 1] = get("/v1/feed/home?limit=20", words(pick(deep, spread(k)))[1])
   end
end
