-- Announcements (API.md "Announcements and alerts"): an operator's message to everyone or to
-- a rally's audience, sent at a time kept here, not in a process's memory, so a restart or a
-- second server neither loses it nor sends it twice.

-- `sent_at` is set by the one transaction that claims it (the outbox job queued for its
-- `send_at`, Announcements.claim) together with the first batch of its fan-out: NULL means
-- "may still be cancelled". The fan-out walks users by seq, one outbox job per batch.
CREATE TABLE announcements (
    seq         INTEGER PRIMARY KEY,   -- the list's order and keyset position
    id          TEXT NOT NULL UNIQUE,
    title_en    TEXT NOT NULL,
    title_es    TEXT,
    body_en     TEXT NOT NULL,
    body_es     TEXT,
    -- NULL: everyone; else everyone who posted, liked or commented on one of its videos.
    rally_id    TEXT REFERENCES rallies (id) ON DELETE CASCADE,
    send_at     INTEGER NOT NULL,
    sent_at     INTEGER,
    created_by  TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX announcements_rally ON announcements (rally_id) WHERE rally_id IS NOT NULL;

-- The inbox learns a fifth kind. SQLite cannot change a CHECK, so the table is rebuilt as
-- migration 0014 rebuilt it (https://sqlite.org/lang_altertable.html#otheralter), with the
-- indexes 0014 and 0015 left it and its triggers made again (the one on videos, which names
-- this table, goes first: SQLite checks every trigger against the schema when a table is
-- renamed). An announcement's row has no
-- activity and no video; its actor is the admin who wrote it.
CREATE TABLE notifications_announcing (
    seq              INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind             TEXT NOT NULL CHECK (kind IN ('like', 'comment', 'follow', 'new_video', 'announcement')),
    actor_id         TEXT NOT NULL,
    activity_id      TEXT REFERENCES activities (id) ON DELETE CASCADE,
    video_id         TEXT,
    -- No foreign key: an announcement is deleted only before it is sent, so none points at
    -- a deleted one, and an index here would be one more B-tree for every like's row.
    announcement_id  TEXT,
    about_me         INTEGER NOT NULL CHECK (about_me IN (0, 1)),
    created_at       INTEGER NOT NULL,
    read_at          INTEGER,
    CHECK ((kind IN ('new_video', 'announcement')) = (activity_id IS NULL)),
    CHECK ((kind = 'announcement') = (announcement_id IS NOT NULL))
) STRICT;
DROP TRIGGER videos_new_video_notifications_delete;
INSERT INTO notifications_announcing (seq, id, user_id, kind, actor_id, activity_id, video_id, about_me, created_at, read_at)
    SELECT seq, id, user_id, kind, actor_id, activity_id, video_id, about_me, created_at, read_at FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_announcing RENAME TO notifications;

CREATE INDEX notifications_inbox ON notifications (user_id, seq);
CREATE INDEX notifications_activity ON notifications (activity_id);
CREATE INDEX notifications_new_video ON notifications (video_id) WHERE activity_id IS NULL;

CREATE TRIGGER notifications_unread_insert AFTER INSERT ON notifications WHEN NEW.read_at IS NULL
BEGIN
    UPDATE users SET unread_notifications = unread_notifications + 1 WHERE id = NEW.user_id;
END;

CREATE TRIGGER notifications_unread_delete AFTER DELETE ON notifications WHEN OLD.read_at IS NULL
BEGIN
    UPDATE users SET unread_notifications = unread_notifications - 1 WHERE id = OLD.user_id;
END;

CREATE TRIGGER notifications_unread_read AFTER UPDATE OF read_at ON notifications
WHEN OLD.read_at IS NULL AND NEW.read_at IS NOT NULL
BEGIN
    UPDATE users SET unread_notifications = unread_notifications - 1 WHERE id = NEW.user_id;
END;

CREATE TRIGGER videos_new_video_notifications_delete AFTER DELETE ON videos
BEGIN
    DELETE FROM notifications WHERE video_id = OLD.id AND activity_id IS NULL;
END;
