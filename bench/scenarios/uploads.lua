-- The background of video-by-id-during-uploads: each connection (run.sh starts 4) PUTs the
-- photo of $BENCH_PHOTO as a profile picture again and again, as soon as the previous upload
-- is answered, with the tokens of prepare.py's uploaders.txt (users whose pictures no other
-- scenario reads). Prints the answers by status at the end: 503 is the media pool's queue
-- (or the large-body slots) being full, which is by design, and is counted, not hidden.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local photo_path = os.getenv("BENCH_PHOTO") or error("BENCH_PHOTO is not set")

local threads_seen = {}
function setup(thread)
   threads_seen[#threads_seen + 1] = thread
   thread:set("tid", #threads_seen)
end

function init(args)
   local f = assert(io.open(photo_path, "rb"), "cannot read " .. photo_path)
   local body = f:read("*a")
   f:close()
   for _, token in ipairs(lines("uploaders.txt")) do
      requests[#requests + 1] = wrk.format("PUT", "/v1/users/me/avatar",
         { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "image/jpeg" }, body)
   end
end

statuses = {}
function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
   local total = {}
   for _, thread in ipairs(threads_seen) do
      for status, n in pairs(thread:get("statuses")) do
         total[status] = (total[status] or 0) + n
      end
   end
   local parts = {}
   for status, n in pairs(total) do parts[#parts + 1] = status .. "=" .. n end
   table.sort(parts)
   io.write("Statuses: " .. table.concat(parts, " ") .. "\n")
end
