-- Rallies, videos and activities (likes, comments, flags, follows), with search indexes
-- (PostgreSQL form of migrations/sqlite/0002).
-- Counters are stored and kept exact by the built-in hooks (SocialAPI/Hooks), inside the
-- write's transaction; CHECKs make a drifting counter fail loudly instead of going negative.

CREATE TABLE rallies (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    country       TEXT NOT NULL,
    -- Calendar dates in UTC, as days since 1970-01-01; a rally spans at most 31 days.
    -- Its days are derived (day n is start_date + n - 1), so they can never disagree.
    start_date    BIGINT NOT NULL,
    end_date      BIGINT NOT NULL,
    videos_count  BIGINT NOT NULL DEFAULT 0 CHECK (videos_count >= 0),
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    CHECK (end_date >= start_date AND end_date - start_date <= 30)
);

CREATE INDEX rallies_start_date ON rallies (start_date, id);

CREATE TABLE videos (
    -- Stable integer key for the search index and the timelines (see users.seq).
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    -- The bare 11-character YouTube id; one video record per YouTube video.
    youtube_id      TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    -- No ON DELETE: a rally cannot be deleted while videos reference it.
    rally_id        TEXT NOT NULL REFERENCES rallies (id),
    day             BIGINT NOT NULL CHECK (day >= 1),
    owner_id        TEXT NOT NULL REFERENCES users (id),
    hidden          BOOLEAN NOT NULL DEFAULT FALSE,
    likes_count     BIGINT NOT NULL DEFAULT 0 CHECK (likes_count >= 0),
    comments_count  BIGINT NOT NULL DEFAULT 0 CHECK (comments_count >= 0),
    flags_count     BIGINT NOT NULL DEFAULT 0 CHECK (flags_count >= 0),
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);

-- Keyset orders: a user's videos newest first; a rally day's videos by recency and by likes.
CREATE INDEX videos_owner_recent ON videos (owner_id, created_at, id);
CREATE INDEX videos_day_recent ON videos (rally_id, day, created_at, id);
CREATE INDEX videos_day_top ON videos (rally_id, day, likes_count, created_at, id);

-- Parse's Activity class: type 1 like, 2 comment, 3 inappropriate (flag), 4 follow.
CREATE TABLE activities (
    -- Stable integer key: feed timelines point at it (see users.seq).
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    type          BIGINT NOT NULL CHECK (type BETWEEN 1 AND 4),
    from_user_id  TEXT NOT NULL REFERENCES users (id),
    to_user_id    TEXT NOT NULL REFERENCES users (id),
    -- Set for likes, comments and flags; NULL for follows.
    video_id      TEXT REFERENCES videos (id),
    -- A comment's text, or a flag's reason.
    content       TEXT,
    created_at    BIGINT NOT NULL,
    CHECK ((type = 4) = (video_id IS NULL)),
    CHECK (type <> 4 OR from_user_id <> to_user_id)
);

-- At most one like and one flag per user and video, one follow per pair of users. Partial
-- unique indexes, as in SQLite; the planner uses them for `type = 1` literals the same way.
CREATE UNIQUE INDEX activities_one_like ON activities (from_user_id, video_id) WHERE type = 1;
CREATE UNIQUE INDEX activities_one_flag ON activities (from_user_id, video_id) WHERE type = 3;
CREATE UNIQUE INDEX activities_one_follow ON activities (from_user_id, to_user_id) WHERE type = 4;

-- A video's likes, comments and flags in order; what someone did, and what was aimed at someone.
CREATE INDEX activities_video ON activities (video_id, type, created_at, id);
CREATE INDEX activities_from ON activities (from_user_id, type, created_at, id);
CREATE INDEX activities_to ON activities (to_user_id, type, created_at, id);
-- The news feed: everything aimed at a user, newest first, whatever its type.
CREATE INDEX activities_to_recent ON activities (to_user_id, created_at, id);

-- Full-text search with accents folded. SQLite's FTS5 tables become tables of tsvector
-- documents, one row per user or video by `seq`, with a GIN index, kept in step by triggers
-- (unaccent() is STABLE, not IMMUTABLE, so neither a generated column nor an expression index
-- may call it). The 'simple' configuration lower-cases and does not stem, as FTS5's
-- unicode61 tokenizer does; the first field weighs A and the second B, for ranking.
CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE FUNCTION pacenote_search_document(first TEXT, second TEXT) RETURNS tsvector
LANGUAGE sql STABLE AS $$
    SELECT setweight(to_tsvector('simple', unaccent(coalesce(first, ''))), 'A')
        || setweight(to_tsvector('simple', unaccent(coalesce(second, ''))), 'B')
$$;

-- Rows go with their user or video (ON DELETE CASCADE), as the SQLite delete triggers do.
CREATE TABLE users_search (
    seq       BIGINT PRIMARY KEY REFERENCES users (seq) ON DELETE CASCADE,
    document  tsvector NOT NULL
);
CREATE INDEX users_search_document ON users_search USING gin (document);

CREATE FUNCTION users_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO users_search (seq, document) VALUES (NEW.seq, pacenote_search_document(NEW.username, NEW.display_name))
    ON CONFLICT (seq) DO UPDATE SET document = EXCLUDED.document;
    RETURN NULL;
END;
$$;

CREATE TRIGGER users_search_insert AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION users_search_sync();
CREATE TRIGGER users_search_update AFTER UPDATE OF username, display_name ON users
    FOR EACH ROW EXECUTE FUNCTION users_search_sync();

-- Accounts created before this migration.
INSERT INTO users_search (seq, document) SELECT seq, pacenote_search_document(username, display_name) FROM users;

CREATE TABLE videos_search (
    seq       BIGINT PRIMARY KEY REFERENCES videos (seq) ON DELETE CASCADE,
    document  tsvector NOT NULL
);
CREATE INDEX videos_search_document ON videos_search USING gin (document);

CREATE FUNCTION videos_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO videos_search (seq, document) VALUES (NEW.seq, pacenote_search_document(NEW.title, NEW.description))
    ON CONFLICT (seq) DO UPDATE SET document = EXCLUDED.document;
    RETURN NULL;
END;
$$;

CREATE TRIGGER videos_search_insert AFTER INSERT ON videos
    FOR EACH ROW EXECUTE FUNCTION videos_search_sync();
CREATE TRIGGER videos_search_update AFTER UPDATE OF title, description ON videos
    FOR EACH ROW EXECUTE FUNCTION videos_search_sync();
