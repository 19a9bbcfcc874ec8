-- GET /r/{id}/{day}: the busiest rally day's public page (its 5 most liked and 15 most recent videos), anonymous.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local rally = words(lines("rally.txt")[1])
   requests[1] = get("/r/" .. rally[1] .. "/" .. rally[2], nil)
end
