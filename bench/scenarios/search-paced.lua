-- The background of me-during-search: the search scenario's requests, each connection
-- waiting a second between searches (run.sh starts it with 6 connections: six people
-- searching once a second, the load under which issue 10 measured /v1/users/me at 330 ms).
dofile(os.getenv("BENCH_LUA") .. "/search.lua")
function delay()
   return 1000
end
