-- Moderation (API.md "Moderation"): the PostgreSQL form of migrations/sqlite/0007.

-- Who did what to what, when and why. `actor_id` is NULL for automatic actions (auto-hide);
-- it is not a foreign key, so the record of an action outlives the moderator's account.
-- `seq` is the log's order and keyset position.
CREATE TABLE moderation_log (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    actor_id     TEXT,
    action       TEXT NOT NULL CHECK (action IN ('hide', 'auto_hide', 'restore', 'dismiss', 'delete_video',
                                                 'delete_comment', 'ban', 'unban', 'set_role')),
    target_type  TEXT NOT NULL CHECK (target_type IN ('video', 'comment', 'user')),
    target_id    TEXT NOT NULL,
    reason       TEXT,
    created_at   BIGINT NOT NULL
);

-- The queue: videos with open flags, most flagged first, then most recently created.
CREATE INDEX videos_flagged ON videos (flags_count, created_at, id) WHERE flags_count > 0;

-- Lists leave out banned users' content through the few rows of this partial index.
CREATE INDEX users_banned ON users (id) WHERE banned_at IS NOT NULL;
