-- What GET /v1/admin/stats reads (API.md "Announcements and alerts"): the last 30 days by
-- range scans, never a scan of a whole table per request.

-- Sign-ups, videos, and likes, comments and flags by day: each an index range over the
-- window's rows alone (QueryPlanTests checks the plans). The activities' one is a B-tree
-- more for every like and comment; it holds two integers, the cheapest a row can cost.
-- Each is on the day (the time divided by a day's milliseconds), an expression no other
-- statement names: an index on the time itself was also chosen by the lists' planners (a
-- day's likes ordered by time, read newest first for the whole table, instead of the
-- video's own index), which a bounded list must never be.
CREATE INDEX users_created_day ON users ((created_at / 86400000));
CREATE INDEX videos_created_day ON videos ((created_at / 86400000));
CREATE INDEX activities_type_day ON activities (type, (created_at / 86400000));

-- Who used the API on which day (UTC): a row per user and day, written when a session is
-- used for the first time that day (Accounts.authenticate, with its once-a-day touch), so the
-- count of a day is a range of this primary key. Sessions keep only their last use, which
-- says nothing about the days before it. Maintenance forgets rows older than 90 days.
CREATE TABLE active_days (
    day      INTEGER NOT NULL,   -- days since 1970-01-01
    user_id  TEXT NOT NULL,
    PRIMARY KEY (day, user_id)
) STRICT, WITHOUT ROWID;
