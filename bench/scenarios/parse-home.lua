-- The home feed as the original app asks the Parse facade for it (issue 31): the videos of the
-- people I follow, newest first, 20 of them, a `$select` on my follows
-- (`whereKey:@"owner" matchesKey:@"toUser" inQuery:follows`), for the users home-first reads
-- /v1/feed/home for, in the same run.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local function escape(text)
   return (text:gsub("[^%w%-_%.~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
function init(args)
   local users = lines("parse-home.txt")
   for k = 0, #users - 1 do
      local user = words(pick(users, spread(k)))
      local where = '{"owner":{"$select":{"query":{"className":"Activity","where":{"fromUser":{"__type":"Pointer",'
         .. '"className":"_User","objectId":"' .. user[2] .. '"},"type":4}},"key":"toUser"}}}'
      local path = "/parse/classes/Video?where=" .. escape(where) .. "&order=-createdAt&limit=20"
      local h = {["X-Parse-Application-Id"] = "pacenote-bench", ["X-Parse-Session-Token"] = "r:" .. user[1]}
      requests[#requests + 1] = wrk.format("GET", path, h)
   end
end
