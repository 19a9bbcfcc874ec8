-- Shared by the scenario scripts (loaded with dofile). Each wrk thread has its own Lua
-- state: `init` builds a list of ready-made requests from the files bench/prepare.py
-- wrote into $BENCH_STATE, and `request` hands them out in turn, so the client spends no
-- time formatting and every request carries the token of one of many users.
state = os.getenv("BENCH_STATE") or error("BENCH_STATE is not set")

function lines(name)
   local out = {}
   local f = assert(io.open(state .. "/" .. name, "r"), "cannot read " .. state .. "/" .. name)
   for line in f:lines() do
      if #line > 0 then out[#out + 1] = line end
   end
   f:close()
   assert(#out > 0, state .. "/" .. name .. " is empty")
   return out
end

function words(line)
   local out = {}
   for w in line:gmatch("%S+") do out[#out + 1] = w end
   return out
end

-- 1-based element of list at 0-based position k (wrapping).
function pick(list, k)
   return list[k % #list + 1]
end

function headers(token, json)
   local h = {}
   if token then h["Authorization"] = "Bearer " .. token end
   if json then h["Content-Type"] = "application/json" end
   return h
end

function get(path, token)
   return wrk.format("GET", path, headers(token, false))
end

function send(method, path, token, body)
   return wrk.format(method, path, headers(token, body ~= nil), body)
end

-- Thread numbers 1, 2, ...: each thread starts at another place in the lists.
local threads = 0
function setup(thread)
   threads = threads + 1
   thread:set("tid", threads)
end

requests = {}
local position = 0
function request()
   position = position + 1
   if position > #requests then position = 1 end
   return requests[position]
end

-- Request k of a thread: offsets spread the threads over the users and videos.
function spread(k)
   return k + ((tid or 1) - 1) * 7919
end
