-- One B-tree per following-feed row instead of two (issue 15). `following_timeline_actor`
-- served only unfollows, yet every fanned-out like, comment and follow paid for it: a second
-- B-tree page per follower, written to the WAL at every commit of the fan-out. An unfollow
-- now deletes the target's activities from the reader's feed by primary key, found through
-- the target's own activities (`activities_from`): its cost follows the target's activity,
-- not the reader's feed, and it is rare next to the fan-out it was slowing.
DROP INDEX IF EXISTS following_timeline_actor;
