-- Announcements (API.md "Announcements and alerts"; PostgreSQL form of
-- migrations/sqlite/0021, which says why each part is so).
CREATE TABLE announcements (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    title_en    TEXT NOT NULL,
    title_es    TEXT,
    body_en     TEXT NOT NULL,
    body_es     TEXT,
    rally_id    TEXT REFERENCES rallies (id) ON DELETE CASCADE,
    send_at     BIGINT NOT NULL,
    sent_at     BIGINT,
    created_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX announcements_rally ON announcements (rally_id) WHERE rally_id IS NOT NULL;

-- The inbox learns a fifth kind; PostgreSQL changes the checks in place.
ALTER TABLE notifications ADD COLUMN announcement_id TEXT;
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications DROP CONSTRAINT notifications_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('like', 'comment', 'follow', 'new_video', 'announcement'));
ALTER TABLE notifications ADD CONSTRAINT notifications_check
    CHECK ((kind IN ('new_video', 'announcement')) = (activity_id IS NULL));
ALTER TABLE notifications ADD CONSTRAINT notifications_announcement_check
    CHECK ((kind = 'announcement') = (announcement_id IS NOT NULL));
