-- Rallies, videos and activities (likes, comments, flags, follows), with search indexes.
-- Counters are stored and kept exact by the built-in hooks (SocialAPI/Hooks), inside the
-- write's transaction; CHECKs make a drifting counter fail loudly instead of going negative.

CREATE TABLE rallies (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    country       TEXT NOT NULL,
    -- Calendar dates in UTC, as days since 1970-01-01; a rally spans at most 31 days.
    -- Its days are derived (day n is start_date + n - 1), so they can never disagree.
    start_date    INTEGER NOT NULL,
    end_date      INTEGER NOT NULL,
    videos_count  INTEGER NOT NULL DEFAULT 0 CHECK (videos_count >= 0),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    CHECK (end_date >= start_date AND end_date - start_date <= 30)
) STRICT;

CREATE INDEX rallies_start_date ON rallies (start_date, id);

CREATE TABLE videos (
    -- Stable integer key for the search index (see users.seq).
    seq             INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    -- The bare 11-character YouTube id; one video record per YouTube video.
    youtube_id      TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    -- No ON DELETE: a rally cannot be deleted while videos reference it.
    rally_id        TEXT NOT NULL REFERENCES rallies (id),
    day             INTEGER NOT NULL CHECK (day >= 1),
    owner_id        TEXT NOT NULL REFERENCES users (id),
    hidden          INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
    likes_count     INTEGER NOT NULL DEFAULT 0 CHECK (likes_count >= 0),
    comments_count  INTEGER NOT NULL DEFAULT 0 CHECK (comments_count >= 0),
    flags_count     INTEGER NOT NULL DEFAULT 0 CHECK (flags_count >= 0),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

-- Keyset orders: a user's videos newest first; a rally day's videos by recency and by likes.
CREATE INDEX videos_owner_recent ON videos (owner_id, created_at, id);
CREATE INDEX videos_day_recent ON videos (rally_id, day, created_at, id);
CREATE INDEX videos_day_top ON videos (rally_id, day, likes_count, created_at, id);

-- Parse's Activity class: type 1 like, 2 comment, 3 inappropriate (flag), 4 follow.
CREATE TABLE activities (
    -- Stable integer key: feed timelines point at it (see users.seq).
    seq           INTEGER PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    type          INTEGER NOT NULL CHECK (type BETWEEN 1 AND 4),
    from_user_id  TEXT NOT NULL REFERENCES users (id),
    to_user_id    TEXT NOT NULL REFERENCES users (id),
    -- Set for likes, comments and flags; NULL for follows.
    video_id      TEXT REFERENCES videos (id),
    -- A comment's text, or a flag's reason.
    content       TEXT,
    created_at    INTEGER NOT NULL,
    CHECK ((type = 4) = (video_id IS NULL)),
    CHECK (type <> 4 OR from_user_id <> to_user_id)
) STRICT;

-- At most one like and one flag per user and video, one follow per pair of users.
CREATE UNIQUE INDEX activities_one_like ON activities (from_user_id, video_id) WHERE type = 1;
CREATE UNIQUE INDEX activities_one_flag ON activities (from_user_id, video_id) WHERE type = 3;
CREATE UNIQUE INDEX activities_one_follow ON activities (from_user_id, to_user_id) WHERE type = 4;

-- A video's likes, comments and flags in order; what someone did, and what was aimed at someone.
CREATE INDEX activities_video ON activities (video_id, type, created_at, id);
CREATE INDEX activities_from ON activities (from_user_id, type, created_at, id);
CREATE INDEX activities_to ON activities (to_user_id, type, created_at, id);
-- The news feed: everything aimed at a user, newest first, whatever its type.
CREATE INDEX activities_to_recent ON activities (to_user_id, created_at, id);

-- Full-text search with accents folded (unicode61 remove_diacritics 2), kept in step with
-- their tables by triggers. External-content tables: the text is stored once, in users
-- and videos; `seq` links each index row to its table row.
CREATE VIRTUAL TABLE users_search USING fts5 (
    username, display_name,
    content = 'users', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_search (rowid, username, display_name) VALUES (new.seq, new.username, new.display_name);
END;
CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
    INSERT INTO users_search (users_search, rowid, username, display_name) VALUES ('delete', old.seq, old.username, old.display_name);
END;
CREATE TRIGGER users_search_update AFTER UPDATE OF username, display_name ON users BEGIN
    INSERT INTO users_search (users_search, rowid, username, display_name) VALUES ('delete', old.seq, old.username, old.display_name);
    INSERT INTO users_search (rowid, username, display_name) VALUES (new.seq, new.username, new.display_name);
END;

-- Accounts created before this migration.
INSERT INTO users_search (rowid, username, display_name) SELECT seq, username, display_name FROM users;

CREATE VIRTUAL TABLE videos_search USING fts5 (
    title, description,
    content = 'videos', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER videos_search_insert AFTER INSERT ON videos BEGIN
    INSERT INTO videos_search (rowid, title, description) VALUES (new.seq, new.title, new.description);
END;
CREATE TRIGGER videos_search_delete AFTER DELETE ON videos BEGIN
    INSERT INTO videos_search (videos_search, rowid, title, description) VALUES ('delete', old.seq, old.title, old.description);
END;
CREATE TRIGGER videos_search_update AFTER UPDATE OF title, description ON videos BEGIN
    INSERT INTO videos_search (videos_search, rowid, title, description) VALUES ('delete', old.seq, old.title, old.description);
    INSERT INTO videos_search (rowid, title, description) VALUES (new.seq, new.title, new.description);
END;
