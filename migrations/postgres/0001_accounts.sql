-- Accounts, sessions and login throttling (PostgreSQL form of migrations/sqlite/0001).
-- Times are BIGINT milliseconds since the Unix epoch (UTC); ids are opaque TEXT.
-- Flags are boolean: the driver reads them as the 0/1 integers SQLite stores, and a bound
-- Swift Bool (sent as 1 or 0) is accepted for a boolean parameter.

CREATE TABLE users (
    -- A stable integer key: search rows and timelines point at it. Clients only ever see `id`.
    seq                        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                         TEXT NOT NULL UNIQUE,
    username                   TEXT NOT NULL,
    -- Lower-cased copies carry the case-insensitive uniqueness (API.md). The constraints keep
    -- PostgreSQL's default names (users_username_key_key): they contain the column, which is
    -- what isUniqueViolation(on:) matches.
    username_key               TEXT NOT NULL UNIQUE,
    email                      TEXT NOT NULL,
    email_key                  TEXT NOT NULL UNIQUE,
    email_verified             BOOLEAN NOT NULL DEFAULT FALSE,
    display_name               TEXT NOT NULL,
    avatar_url                 TEXT,
    password_hash              TEXT NOT NULL,
    role                       TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'moderator', 'admin')),
    notify_new_videos          BOOLEAN NOT NULL DEFAULT TRUE,
    notify_my_activity         BOOLEAN NOT NULL DEFAULT TRUE,
    notify_following_activity  BOOLEAN NOT NULL DEFAULT FALSE,
    followers_count            BIGINT NOT NULL DEFAULT 0 CHECK (followers_count >= 0),
    following_count            BIGINT NOT NULL DEFAULT 0 CHECK (following_count >= 0),
    videos_count               BIGINT NOT NULL DEFAULT 0 CHECK (videos_count >= 0),
    banned_at                  BIGINT,
    ban_reason                 TEXT,
    created_at                 BIGINT NOT NULL,
    updated_at                 BIGINT NOT NULL
);

-- Only the SHA-256 of a session token is stored (hex), so a leaked database leaks no session.
CREATE TABLE sessions (
    token_hash    TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL
);

CREATE INDEX sessions_user_id ON sessions (user_id);

-- Failed logins per login name (lower-cased), whether or not an account has that name,
-- so that a lockout reveals nothing about which names exist. One row per failure, so the
-- window slides: N failures within any span of the window lock the name.
CREATE TABLE login_failures (
    login_key  TEXT NOT NULL,
    failed_at  BIGINT NOT NULL
);

CREATE INDEX login_failures_key_time ON login_failures (login_key, failed_at);

CREATE TABLE login_locks (
    login_key     TEXT PRIMARY KEY,
    locked_until  BIGINT NOT NULL
);
