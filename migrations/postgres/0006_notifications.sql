-- Notifications (API.md "Notifications"): each user's inbox, and outbox lanes so that push
-- delivery never waits behind the feed fan-out (PostgreSQL form of migrations/sqlite/0006).

-- What was sent to each user, whether or not they had a device registered. Rows go with the
-- user, the actor, the activity or the video they are about (ON DELETE CASCADE): an unlike,
-- a deleted comment or video takes its notifications away in the same transaction.
CREATE TABLE notifications (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,   -- the inbox's order and keyset position
    id           TEXT NOT NULL UNIQUE,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,      -- the recipient
    kind         TEXT NOT NULL CHECK (kind IN ('like', 'comment', 'follow', 'new_video')),
    actor_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    activity_id  TEXT REFERENCES activities (id) ON DELETE CASCADE,
    video_id     TEXT REFERENCES videos (id) ON DELETE CASCADE,
    -- true: aimed at the recipient (myActivity); false: done by someone they follow
    -- (followingActivity) or a new video (newVideos). Chooses the push text.
    about_me     BOOLEAN NOT NULL,
    created_at   BIGINT NOT NULL,
    read_at      BIGINT,
    CHECK ((kind = 'new_video') = (activity_id IS NULL))
);

CREATE INDEX notifications_inbox ON notifications (user_id, seq);
-- The badge of every push counts these.
CREATE INDEX notifications_unread ON notifications (user_id, seq) WHERE read_at IS NULL;
-- The cascades find a deleted activity's, video's or actor's notifications through these.
CREATE INDEX notifications_activity ON notifications (activity_id);
CREATE INDEX notifications_video ON notifications (video_id);
CREATE INDEX notifications_actor ON notifications (actor_id);

-- The badge every push carries: each user's unread count, stored so that a broadcast to
-- 10,000 devices does not count 10,000 inboxes. Triggers keep it, not hooks, because the
-- rows also go by ON DELETE CASCADE, which no hook sees; a trigger fires for those too.
ALTER TABLE users ADD COLUMN unread_notifications BIGINT NOT NULL DEFAULT 0 CHECK (unread_notifications >= 0);

CREATE FUNCTION notifications_unread_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE users SET unread_notifications = unread_notifications + 1 WHERE id = NEW.user_id;
    ELSE
        -- A delete of an unread row, or an update that marks it read.
        UPDATE users SET unread_notifications = unread_notifications - 1 WHERE id = OLD.user_id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER notifications_unread_insert AFTER INSERT ON notifications
    FOR EACH ROW WHEN (NEW.read_at IS NULL) EXECUTE FUNCTION notifications_unread_sync();
CREATE TRIGGER notifications_unread_delete AFTER DELETE ON notifications
    FOR EACH ROW WHEN (OLD.read_at IS NULL) EXECUTE FUNCTION notifications_unread_sync();
CREATE TRIGGER notifications_unread_read AFTER UPDATE OF read_at ON notifications
    FOR EACH ROW WHEN (OLD.read_at IS NULL AND NEW.read_at IS NOT NULL) EXECUTE FUNCTION notifications_unread_sync();

-- When a push of a given like (actor, video, recipient) last went out: like, unlike and like
-- again within a minute pushes once. Rows older than that are purged by maintenance.
CREATE TABLE push_recent (
    key        TEXT PRIMARY KEY,
    pushed_at  BIGINT NOT NULL
);

-- Lanes: each has its own worker, so pushes (lane 'push') never queue behind a backlog of
-- feed fan-out ('feed'), and the broadcast of a new video's notifications ('notify') runs
-- beside both.
ALTER TABLE outbox ADD COLUMN lane TEXT NOT NULL DEFAULT 'feed';
DROP INDEX outbox_ready;
CREATE INDEX outbox_lane_ready ON outbox (lane, state, available_at);
