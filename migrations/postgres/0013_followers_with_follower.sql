-- The same change as the SQLite schema's 0013, where it was measured (issue 15): the follows
-- aimed at a user carry the follower's id in their indexes, so that walking an author's
-- followers (fan-outs, clean-ups, following notifications) need not read each follow's row,
-- and the users who want to hear of their followees' activities have a small index of their own.
DROP INDEX activities_followers;
CREATE INDEX activities_followers ON activities (to_user_id, created_at, id, from_user_id, type) WHERE type = 4;
DROP INDEX activities_followers_by_seq;
CREATE INDEX activities_followers_by_seq ON activities (to_user_id, seq, from_user_id, type) WHERE type = 4;
CREATE INDEX users_following_activity ON users (id, notify_following_activity, banned_at)
    WHERE notify_following_activity = TRUE AND banned_at IS NULL;
