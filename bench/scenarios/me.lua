-- GET /v1/users/me: the lightest authenticated read, many users' tokens.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens = lines("tokens.txt")
   for k = 0, #tokens * 2 - 1 do
      requests[#requests + 1] = get("/v1/users/me", pick(tokens, spread(k)))
   end
end
