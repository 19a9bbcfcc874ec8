-- The change log of rallies and videos (PostgreSQL form of migrations/sqlite/0020).

-- One row per object, moved to a new position by every change of it; the op and object are
-- decided when read (see the SQLite file). The position is (txid, seq): txid is the writing
-- transaction's id (pg_current_xact_id, as a bigint) and seq from changes_seq. Seqs become
-- visible out of order (a transaction holding 7 can commit after one holding 8), so a reader
-- hands out only rows whose txid is below its snapshot's xmin, every transaction there having
-- ended, and pages by (txid, seq): no row can later appear behind a position handed out
-- (docs/ARCHITECTURE.md, "Community").
CREATE SEQUENCE changes_seq;
CREATE TABLE changes (
    kind        TEXT NOT NULL CHECK (kind IN ('rally', 'video')),
    object_id   TEXT NOT NULL,
    txid        BIGINT NOT NULL,
    seq         BIGINT NOT NULL,
    changed_at  BIGINT NOT NULL,
    deleted     BOOLEAN NOT NULL,
    PRIMARY KEY (kind, object_id)
);
CREATE UNIQUE INDEX changes_position ON changes (txid, seq);
CREATE INDEX changes_tombstones ON changes (changed_at) WHERE deleted = TRUE;

CREATE TABLE changes_horizon (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    purged_txid     BIGINT NOT NULL,
    purged_seq      BIGINT NOT NULL,
    purged_before   BIGINT NOT NULL
);
INSERT INTO changes_horizon (id, purged_txid, purged_seq, purged_before) VALUES (1, 0, 0, 0);

INSERT INTO changes (kind, object_id, txid, seq, changed_at, deleted)
    SELECT 'rally', id, pg_current_xact_id()::text::bigint, nextval('changes_seq'), updated_at, FALSE
    FROM (SELECT id, updated_at FROM rallies ORDER BY created_at, id) r;
INSERT INTO changes (kind, object_id, txid, seq, changed_at, deleted)
    SELECT 'video', id, pg_current_xact_id()::text::bigint, nextval('changes_seq'), updated_at, FALSE
    FROM (SELECT id, updated_at FROM videos ORDER BY created_at, id) v;
