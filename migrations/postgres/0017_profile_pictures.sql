-- Profile pictures (API.md "Profile pictures", issue 29); see the SQLite migration of the same
-- name for the model. `bytes` is stored out of line (TOAST) and not compressed again: JPEG
-- does not compress.
ALTER TABLE users RENAME COLUMN avatar_url TO picture;
UPDATE users SET picture = NULL WHERE picture IS NOT NULL;

CREATE TABLE profile_pictures (
    name        TEXT NOT NULL UNIQUE,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    bytes       BYTEA NOT NULL,
    created_at  BIGINT NOT NULL
);
ALTER TABLE profile_pictures ALTER COLUMN bytes SET STORAGE EXTERNAL;

CREATE INDEX profile_pictures_user_id ON profile_pictures (user_id);

ALTER TABLE moderation_log DROP CONSTRAINT moderation_log_action_check;
ALTER TABLE moderation_log ADD CONSTRAINT moderation_log_action_check CHECK (action IN (
    'hide', 'auto_hide', 'restore', 'dismiss', 'delete_video', 'delete_comment', 'ban', 'unban', 'set_role', 'remove_picture'));
