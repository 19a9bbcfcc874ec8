-- Accounts, sessions and login throttling.
-- Times are INTEGER milliseconds since the Unix epoch (UTC); ids are opaque TEXT.

CREATE TABLE users (
    -- A stable integer key: full-text search rows point at it (VACUUM may renumber an
    -- implicit rowid, never an INTEGER PRIMARY KEY). Clients only ever see `id`.
    seq                        INTEGER PRIMARY KEY,
    id                         TEXT NOT NULL UNIQUE,
    username                   TEXT NOT NULL,
    -- Lower-cased copies carry the case-insensitive uniqueness (API.md).
    username_key               TEXT NOT NULL UNIQUE,
    email                      TEXT NOT NULL,
    email_key                  TEXT NOT NULL UNIQUE,
    email_verified             INTEGER NOT NULL DEFAULT 0 CHECK (email_verified IN (0, 1)),
    display_name               TEXT NOT NULL,
    avatar_url                 TEXT,
    password_hash              TEXT NOT NULL,
    role                       TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'moderator', 'admin')),
    notify_new_videos          INTEGER NOT NULL DEFAULT 1 CHECK (notify_new_videos IN (0, 1)),
    notify_my_activity         INTEGER NOT NULL DEFAULT 1 CHECK (notify_my_activity IN (0, 1)),
    notify_following_activity  INTEGER NOT NULL DEFAULT 0 CHECK (notify_following_activity IN (0, 1)),
    followers_count            INTEGER NOT NULL DEFAULT 0 CHECK (followers_count >= 0),
    following_count            INTEGER NOT NULL DEFAULT 0 CHECK (following_count >= 0),
    videos_count               INTEGER NOT NULL DEFAULT 0 CHECK (videos_count >= 0),
    banned_at                  INTEGER,
    ban_reason                 TEXT,
    created_at                 INTEGER NOT NULL,
    updated_at                 INTEGER NOT NULL
) STRICT;

-- Only the SHA-256 of a session token is stored (hex), so a leaked database leaks no session.
CREATE TABLE sessions (
    token_hash    TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX sessions_user_id ON sessions (user_id);

-- Failed logins per login name (lower-cased), whether or not an account has that name,
-- so that a lockout reveals nothing about which names exist. One row per failure, so the
-- window slides: N failures within any span of the window lock the name.
CREATE TABLE login_failures (
    login_key  TEXT NOT NULL,
    failed_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX login_failures_key_time ON login_failures (login_key, failed_at);

CREATE TABLE login_locks (
    login_key     TEXT PRIMARY KEY,
    locked_until  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
