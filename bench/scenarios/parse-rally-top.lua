-- The original app's rally-day screen through the Parse facade (issue 31): the busiest rally
-- day's videos by likes, as the iOS SDK's PFQuery asks for them, beside rally-top (the same
-- list through /v1) in the same run. GET /parse/classes/Video?where={rallyId, nDay}&order=-nLikes&limit=20,
-- with the owners included (`includeKey:@"owner"`, as the app shows them and /v1 does), with the
-- application id and each user's session as an `r:` token.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local tokens, rally = lines("tokens.txt"), words(lines("rally.txt")[1])
   local where = '{"rallyId":{"__type":"Pointer","className":"Rallye","objectId":"' .. rally[1] .. '"},"nDay":' .. rally[2] .. '}'
   local escaped = where:gsub("[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end)
   local path = "/parse/classes/Video?where=" .. escaped .. "&order=-nLikes&limit=20&include=owner"
   for k = 0, #tokens - 1 do
      local h = {["X-Parse-Application-Id"] = "pacenote-bench", ["X-Parse-Session-Token"] = "r:" .. pick(tokens, spread(k))}
      requests[#requests + 1] = wrk.format("GET", path, h)
   end
end
