-- What GET /v1/admin/stats reads (API.md "Announcements and alerts"): the last 30 days by
-- range scans, never a scan of a whole table per request.

-- Sign-ups, videos, and likes, comments and flags by day: each an index range over the
-- window's rows alone (QueryPlanTests checks the plans). The activities' one is a B-tree
-- more for every like and comment; it holds two integers, the cheapest a row can cost.
CREATE INDEX users_created ON users (created_at);
CREATE INDEX videos_created ON videos (created_at);
CREATE INDEX activities_type_created ON activities (type, created_at);

-- Who used the API on which day (UTC): a row per user and day, written when a session is
-- used for the first time that day (Accounts.authenticate, with its once-a-day touch), so the
-- count of a day is a range of this primary key. Sessions keep only their last use, which
-- says nothing about the days before it. Maintenance forgets rows older than 90 days.
CREATE TABLE active_days (
    day      INTEGER NOT NULL,   -- days since 1970-01-01
    user_id  TEXT NOT NULL,
    PRIMARY KEY (day, user_id)
) STRICT, WITHOUT ROWID;
