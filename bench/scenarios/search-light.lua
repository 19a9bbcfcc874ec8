-- The search scenario's requests at a realistic rate: 32 connections, each searching once a
-- second (about 32 searches/s), so the figures are a search's own latency, not a queue's.
dofile(os.getenv("BENCH_LUA") .. "/search-paced.lua")
