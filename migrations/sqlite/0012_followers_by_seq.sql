-- An author's followers in the order of their follows (issue 15). Fan-outs, clean-ups and
-- notifications walk an author's followers in bounded steps by follow seq (`f.seq > after ...
-- ORDER BY f.seq LIMIT n`). With only `activities_followers` (by time) and
-- `activities_to_recent` (everything aimed at the user) to choose from, SQLite picked whichever
-- of the two came later in the schema, and an import rebuilds them in another order: on an
-- imported database each step walked every like, comment and follow the author had received,
-- a cost that grew with every burst (a like + unlike burst's drain took 3 s, then 11 s, then
-- 39 s as the benchmark's runs added likes). This index answers those steps with one range.
CREATE INDEX activities_followers_by_seq ON activities (to_user_id, seq) WHERE type = 4;
