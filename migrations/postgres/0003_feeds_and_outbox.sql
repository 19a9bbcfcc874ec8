-- Feed timelines, filled at write time so that reading a page never depends on how many
-- people the reader follows, and the outbox that carries work too large for one request
-- (PostgreSQL form of migrations/sqlite/0003). Rows point at users, videos and activities
-- by their stable integer `seq`.

-- Home: the videos of the people a reader follows, and the reader's own.
CREATE TABLE home_timeline (
    user_seq    BIGINT NOT NULL,   -- the reader
    created_at  BIGINT NOT NULL,   -- the video's
    video_seq   BIGINT NOT NULL,
    owner_seq   BIGINT NOT NULL,
    PRIMARY KEY (user_seq, created_at, video_seq)
);

-- Unfollow removes one owner's videos from one reader. Deleting a video finds its rows by
-- primary key, through the owner and their followers: no index led by video_seq.
CREATE INDEX home_timeline_owner ON home_timeline (user_seq, owner_seq);

-- Following: the likes, comments and follows of the people a reader follows.
CREATE TABLE following_timeline (
    user_seq      BIGINT NOT NULL,   -- the reader
    created_at    BIGINT NOT NULL,   -- the activity's
    activity_seq  BIGINT NOT NULL,
    actor_seq     BIGINT NOT NULL,
    PRIMARY KEY (user_seq, created_at, activity_seq)
);

-- As above: unfollow by (reader, actor); a deleted activity is found through its author's followers.
CREATE INDEX following_timeline_actor ON following_timeline (user_seq, actor_seq);

-- Durable work queue, written in the same transaction as the change that needs it, so a
-- crash can neither lose the work nor do it for a write that rolled back.
-- States: pending (available_at says when) -> leased (leased_until) -> done | pending (retry) | dead.
CREATE TABLE outbox (
    seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind             TEXT NOT NULL,
    payload          TEXT NOT NULL,
    state            TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'leased', 'done', 'dead')),
    attempts         BIGINT NOT NULL DEFAULT 0,
    available_at     BIGINT NOT NULL,
    leased_until     BIGINT,
    last_error       TEXT,
    idempotency_key  TEXT UNIQUE,
    created_at       BIGINT NOT NULL,
    finished_at      BIGINT
);

CREATE INDEX outbox_ready ON outbox (state, available_at);

-- Devices that receive pushes (Parse's _Installation class). A device token belongs to one
-- user at a time: registering it again moves it to the current user.
CREATE TABLE installations (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    platform      TEXT NOT NULL CHECK (platform IN ('ios', 'android', 'webhook')),
    device_token  TEXT NOT NULL UNIQUE,
    locale        TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE INDEX installations_user ON installations (user_id);
