-- Home timelines bounded per reader (issue 15): the PostgreSQL form of
-- migrations/sqlite/0009, which says why. An account with very many followers is "hot": its
-- videos are merged into its followers' home feeds at read time instead of copied into each
-- of their home_timeline rows. Hot is sticky (SocialAPI/Feeds/Timelines.swift).
CREATE TABLE feed_hot_accounts (
    user_id  TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE
);

-- Who follows which hot account, by reader: the home feed's one range scan for its arms.
CREATE TABLE feed_hot_follows (
    user_seq  BIGINT NOT NULL,   -- the reader
    owner_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (user_seq, owner_id)
);

CREATE INDEX feed_hot_follows_owner ON feed_hot_follows (owner_id);

-- The read-time merge: one account's videos in the home feed's order, (created_at, seq);
-- `hidden` makes it covering.
CREATE INDEX videos_owner_home ON videos (owner_id, created_at, seq, hidden);

INSERT INTO feed_hot_accounts (user_id)
SELECT id FROM users WHERE followers_count >= 1000
ON CONFLICT DO NOTHING;

INSERT INTO feed_hot_follows (user_seq, owner_id)
SELECT r.seq, f.to_user_id FROM feed_hot_accounts h
JOIN activities f ON f.to_user_id = h.user_id AND f.type = 4
JOIN users r ON r.id = f.from_user_id
WHERE TRUE
ON CONFLICT DO NOTHING;

-- The hot accounts' videos leave their followers' homes (each keeps its own). PostgreSQL
-- deletes in place: no PostgreSQL database holds an imported community yet.
DELETE FROM home_timeline
WHERE user_seq <> owner_seq
  AND owner_seq IN (SELECT u.seq FROM feed_hot_accounts h JOIN users u ON u.id = h.user_id);
