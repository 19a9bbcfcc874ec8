-- Followers of a user, by the time they followed: only follows belong in this index.
-- `activities_to` also carried every like, comment and flag aimed at the user, though
-- nothing reads those through it (news reads `activities_to_recent`): each like or comment
-- paid for an index entry nobody used, one B-tree of the seven an activity changes.
DROP INDEX activities_to;
CREATE INDEX activities_followers ON activities (to_user_id, created_at, id) WHERE type = 4;
