-- Moderation (API.md "Moderation"): the log of what moderators (and the automatic hiding)
-- did, the queue's index, and the lookup that keeps banned users' content out of sight.

-- Who did what to what, when and why. `actor_id` is NULL for automatic actions (auto-hide);
-- it is not a foreign key, so the record of an action outlives the moderator's account
-- (the log then shows no actor object, as for automatic ones). `seq` is the log's order
-- and keyset position: newest first is `seq DESC`, one index range at any depth.
CREATE TABLE moderation_log (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    actor_id     TEXT,
    action       TEXT NOT NULL CHECK (action IN ('hide', 'auto_hide', 'restore', 'dismiss', 'delete_video',
                                                 'delete_comment', 'ban', 'unban', 'set_role')),
    target_type  TEXT NOT NULL CHECK (target_type IN ('video', 'comment', 'user')),
    target_id    TEXT NOT NULL,
    reason       TEXT,
    created_at   INTEGER NOT NULL
) STRICT;

-- The queue: videos with open flags, most flagged first, then most recently created.
CREATE INDEX videos_flagged ON videos (flags_count, created_at, id) WHERE flags_count > 0;

-- Every list leaves out banned users' content with `NOT IN (SELECT id FROM users WHERE
-- banned_at IS NOT NULL)`: SQLite computes that set once per statement from this partial
-- index, which holds only the banned (a handful), so lists cost what they did.
CREATE INDEX users_banned ON users (id) WHERE banned_at IS NOT NULL;
