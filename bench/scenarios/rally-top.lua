-- GET /v1/rallies/{id}/days/{n}/videos?sort=top: the busiest rally day, by likes.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens, rally = lines("tokens.txt"), words(lines("rally.txt")[1])
   local path = "/v1/rallies/" .. rally[1] .. "/days/" .. rally[2] .. "/videos?sort=top&limit=20"
   for k = 0, #tokens - 1 do
      requests[#requests + 1] = get(path, pick(tokens, spread(k)))
   end
end
