-- Notifications without the two indexes that only their cascades used (issue 15). Every like,
-- comment and follow writes its notification inside the request, and every unlike deletes it:
-- `notifications_actor` and `notifications_video` were two of the seven B-trees each of those
-- touched, there only so that deleting a user or a video could find its notifications.
--
-- Those notifications go another way. One that an activity caused goes with the activity
-- (`activity_id ... ON DELETE CASCADE`, kept), and every activity of a user, and on a video,
-- is deleted before the user or the video can be (their foreign keys have no cascade). What
-- is left is a new video's broadcast: the trigger below deletes it with its video, through a
-- partial index that no like or comment writes to. A foreign key without an index would cost
-- a scan of the table per deleted user or video, so the two constraints go with the indexes.
--
-- SQLite cannot drop a constraint, so the table is rebuilt (https://sqlite.org/lang_altertable.html#otheralter);
-- no table refers to it. Its triggers go with it and are made again as migration 0006 made them.
CREATE TABLE notifications_slim (
    seq          INTEGER PRIMARY KEY,   -- the inbox's order and keyset position
    id           TEXT NOT NULL UNIQUE,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,      -- the recipient
    kind         TEXT NOT NULL CHECK (kind IN ('like', 'comment', 'follow', 'new_video')),
    actor_id     TEXT NOT NULL,         -- the activity's author, or the new video's owner
    activity_id  TEXT REFERENCES activities (id) ON DELETE CASCADE,
    video_id     TEXT,                  -- a new video's goes by the trigger below
    about_me     INTEGER NOT NULL CHECK (about_me IN (0, 1)),
    created_at   INTEGER NOT NULL,
    read_at      INTEGER,
    CHECK ((kind = 'new_video') = (activity_id IS NULL))
) STRICT;
INSERT INTO notifications_slim (seq, id, user_id, kind, actor_id, activity_id, video_id, about_me, created_at, read_at)
    SELECT seq, id, user_id, kind, actor_id, activity_id, video_id, about_me, created_at, read_at FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_slim RENAME TO notifications;

CREATE INDEX notifications_inbox ON notifications (user_id, seq);
CREATE INDEX notifications_unread ON notifications (user_id, seq) WHERE read_at IS NULL;
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

-- A trigger, not a hook: it fires however the video goes.
CREATE TRIGGER videos_new_video_notifications_delete AFTER DELETE ON videos
BEGIN
    DELETE FROM notifications WHERE video_id = OLD.id AND activity_id IS NULL;
END;
