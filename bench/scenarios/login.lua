-- POST /v1/sessions as many users in turn (bcrypt, cost 10).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function init(args)
   local logins = lines("logins.txt")
   for k = 0, #logins - 1 do
      local body = '{"login":"' .. pick(logins, spread(k)) .. '","password":"password123"}'
      requests[#requests + 1] = send("POST", "/v1/sessions", nil, body)
   end
end
