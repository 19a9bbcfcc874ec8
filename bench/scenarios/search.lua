-- GET /v1/search/{users,videos}?q=: the dataset's words typed as people type them (whole
-- words, prefixes of 1 to 5 letters, two words), many users' tokens (prepare.py search.txt).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens, queries = lines("tokens.txt"), lines("search.txt")
   for k = 0, #queries - 1 do
      local s = spread(k)
      local q = words(pick(queries, s))
      requests[#requests + 1] = get("/v1/search/" .. q[1] .. "?limit=20&q=" .. q[2], pick(tokens, s))
   end
end
