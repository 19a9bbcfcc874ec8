-- Profile pictures (API.md "Profile pictures", issue 29). Each user has at most one picture,
-- kept as two JPEG renditions in `profile_pictures`, so every server on one database serves
-- every picture and a backup holds them. `users.picture` (was `avatar_url`, which nothing ever
-- set) is the picture's random key: the renditions are named `<key>-400.jpg` and
-- `<key>-100.jpg`, and a new picture gets a new key, so a name always means the same bytes and
-- can be cached for ever. The rows go with their account (ON DELETE CASCADE).
ALTER TABLE users RENAME COLUMN avatar_url TO picture;
UPDATE users SET picture = NULL WHERE picture IS NOT NULL;

-- A rowid table: its rows are tens of kilobytes, which a WITHOUT ROWID table keeps poorly.
CREATE TABLE profile_pictures (
    name        TEXT NOT NULL UNIQUE,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    bytes       BLOB NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX profile_pictures_user_id ON profile_pictures (user_id);

-- A moderator's removal of a picture is logged as `remove_picture`. SQLite cannot change a
-- CHECK constraint in place: the log is rebuilt with the new list (same columns, same rows).
CREATE TABLE moderation_log_new (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    actor_id     TEXT,
    action       TEXT NOT NULL CHECK (action IN ('hide', 'auto_hide', 'restore', 'dismiss', 'delete_video',
                                                 'delete_comment', 'ban', 'unban', 'set_role', 'remove_picture')),
    target_type  TEXT NOT NULL CHECK (target_type IN ('video', 'comment', 'user')),
    target_id    TEXT NOT NULL,
    reason       TEXT,
    created_at   INTEGER NOT NULL
) STRICT;
INSERT INTO moderation_log_new (seq, id, actor_id, action, target_type, target_id, reason, created_at)
    SELECT seq, id, actor_id, action, target_type, target_id, reason, created_at FROM moderation_log;
DROP TABLE moderation_log;
ALTER TABLE moderation_log_new RENAME TO moderation_log;
