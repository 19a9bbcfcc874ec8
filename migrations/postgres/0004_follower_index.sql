-- Followers of a user, by the time they followed: only follows belong in this index
-- (PostgreSQL form of migrations/sqlite/0004). `activities_to` also carried every like,
-- comment and flag aimed at the user, though nothing reads those through it.
DROP INDEX activities_to;
CREATE INDEX activities_followers ON activities (to_user_id, created_at, id) WHERE type = 4;
