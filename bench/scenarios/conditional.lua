-- The requests of one file bench/sync.py wrote ($BENCH_REQUESTS: lines `path token etag`), with
-- If-None-Match set to the ETag when $BENCH_IF_NONE_MATCH is 1 (each answered 304), without it
-- otherwise (each answered 200 with the body): the same requests both ways.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local match = os.getenv("BENCH_IF_NONE_MATCH") == "1"
   local f = assert(io.open(os.getenv("BENCH_REQUESTS"), "r"))
   for line in f:lines() do
      local w = words(line)
      local h = headers(w[2], false)
      if match then h["If-None-Match"] = w[3] end
      requests[#requests + 1] = wrk.format("GET", w[1], h)
   end
   f:close()
end
