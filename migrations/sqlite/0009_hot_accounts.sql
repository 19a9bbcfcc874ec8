-- Home timelines bounded per reader (issue 15). An account with very many followers is
-- "hot": its videos are no longer copied into every follower's home_timeline (a row per
-- follower per video: 68 million rows on the social-shaped benchmark, most of them the
-- videos of a few dozen accounts); GET /v1/feed/home merges them in at read time instead,
-- one keyset seek into the account's videos per hot account the reader follows.
--
-- Hot is sticky: an account is marked once its followers reach the threshold (1,000, the
-- default of `serve --fanout-hot-followers`) and stays marked. Marking is safe at any
-- moment, since the read merges what fan-out no longer writes and drops duplicates; unmarking
-- would need every follower's home backfilled, so only a rebuild of the timelines does what
-- amounts to it (SocialAPI/Feeds/Timelines.swift has the whole rule).
CREATE TABLE feed_hot_accounts (
    user_id  TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- Who follows which hot account, by reader: the home feed's one range scan for its arms.
-- Looking the hot accounts up through the reader's follows cost a probe per account they
-- follow (173 µs for a reader following 650); this is one probe per hot account followed.
-- Kept with the follows: a follow of a hot account adds its row, an unfollow removes it, an
-- account turning hot adds a row per follower (once), a deleted reader's rows go with its
-- feeds and a deleted hot account's by the cascade (hence the index on owner_id).
CREATE TABLE feed_hot_follows (
    user_seq  INTEGER NOT NULL,   -- the reader
    owner_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (user_seq, owner_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX feed_hot_follows_owner ON feed_hot_follows (owner_id);

-- The read-time merge: one account's videos in the home feed's order, (created_at, seq),
-- so each seek reads exactly the rows it returns; `hidden` makes it covering (the banned
-- check is made once per hot account, not per video).
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

-- The hot accounts' videos leave their followers' homes (each keeps its own). Copying the
-- rows that stay into a new table and dropping the old one, rather than deleting in place:
-- on the social-shaped benchmark that keeps 8 of 68 million rows, and a DELETE would update
-- both B-trees once per removed row. The pages freed stay in the file for later growth
-- until a VACUUM.
CREATE TABLE home_timeline_bounded (
    user_seq    INTEGER NOT NULL,   -- the reader
    created_at  INTEGER NOT NULL,   -- the video's
    video_seq   INTEGER NOT NULL,
    owner_seq   INTEGER NOT NULL,
    PRIMARY KEY (user_seq, created_at, video_seq)
) STRICT, WITHOUT ROWID;

INSERT INTO home_timeline_bounded (user_seq, created_at, video_seq, owner_seq)
SELECT user_seq, created_at, video_seq, owner_seq FROM home_timeline
WHERE user_seq = owner_seq
   OR owner_seq NOT IN (SELECT u.seq FROM feed_hot_accounts h JOIN users u ON u.id = h.user_id)
ORDER BY user_seq, created_at, video_seq;

DROP TABLE home_timeline;
ALTER TABLE home_timeline_bounded RENAME TO home_timeline;
CREATE INDEX home_timeline_owner ON home_timeline (user_seq, owner_seq);
