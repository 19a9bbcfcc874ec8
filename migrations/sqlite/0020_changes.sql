-- The change log of rallies and videos (API.md "Sync": GET /v1/changes).

-- One row per object, moved to a new position by every change of it (created, edited,
-- hidden, restored, deleted), so a walk from the start meets every live object once and
-- every tombstone once. The op and the object are decided when the row is read, per reader,
-- from the object's state then: a hide, a restore or a ban needs no row of its own kind.
-- The position is (txid, seq): on SQLite txid is always 0 and seq one more than the highest
-- handed out, inside the one writer's transaction, so positions are committed in order
-- (docs/ARCHITECTURE.md, "Community").
CREATE TABLE changes (
    kind        TEXT NOT NULL CHECK (kind IN ('rally', 'video')),
    object_id   TEXT NOT NULL,
    txid        INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    changed_at  INTEGER NOT NULL,
    deleted     BOOLEAN NOT NULL,
    PRIMARY KEY (kind, object_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX changes_position ON changes (txid, seq);
-- The purge's walk: tombstones oldest first.
CREATE INDEX changes_tombstones ON changes (changed_at) WHERE deleted = TRUE;

-- How far the purge of tombstones has gone: the highest position it removed and one past
-- the newest removal time. A token behind both is answered 410 sync_expired.
CREATE TABLE changes_horizon (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    purged_txid     INTEGER NOT NULL,
    purged_seq      INTEGER NOT NULL,
    purged_before   INTEGER NOT NULL
);
INSERT INTO changes_horizon (id, purged_txid, purged_seq, purged_before) VALUES (1, 0, 0, 0);

-- What exists already is the log's beginning: rallies first, then videos, each oldest first.
INSERT INTO changes (kind, object_id, txid, seq, changed_at, deleted)
    SELECT 'rally', id, 0, ROW_NUMBER() OVER (ORDER BY created_at, id), updated_at, FALSE FROM rallies;
INSERT INTO changes (kind, object_id, txid, seq, changed_at, deleted)
    SELECT 'video', id, 0, (SELECT COUNT(*) FROM rallies) + ROW_NUMBER() OVER (ORDER BY created_at, id), updated_at, FALSE FROM videos;
