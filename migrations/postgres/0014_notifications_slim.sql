-- Notifications without the two indexes that only their cascades used (issue 15; PostgreSQL
-- form of migrations/sqlite/0014, which says why). A foreign key without an index would cost
-- a scan of the table per deleted user or video, so the constraints go with the indexes; a
-- new video's broadcast goes with its video by the trigger below.
ALTER TABLE notifications DROP CONSTRAINT notifications_actor_id_fkey;
ALTER TABLE notifications DROP CONSTRAINT notifications_video_id_fkey;
DROP INDEX notifications_actor;
DROP INDEX notifications_video;
CREATE INDEX notifications_new_video ON notifications (video_id) WHERE activity_id IS NULL;

CREATE FUNCTION videos_new_video_notifications_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM notifications WHERE video_id = OLD.id AND activity_id IS NULL;
    RETURN NULL;
END;
$$;

CREATE TRIGGER videos_new_video_notifications_delete AFTER DELETE ON videos
    FOR EACH ROW EXECUTE FUNCTION videos_new_video_notifications_delete();
