import Community
import Storage

/// Recomputes every stored counter from the rows it counts, set-based.
///
/// `videos_count` follows the rule the server keeps (`BuiltInHooks`): a video counts when it is
/// not hidden and its owner is not banned, so a second import into a database a server has
/// used leaves moderated videos out as the server did.
///
/// Each correlated COUNT(*) is an index range count: activities by (video_id, type …),
/// (to_user_id, type …) and (from_user_id, type …), videos by (owner_id …) and (rally_id …),
/// so the cost is one index probe per counted row's owner, never a scan per row. A user's
/// `hidden` is in `videos_owner_home` too; a rally's videos are read by `videos_day_recent`
/// and then each row for `hidden`: one pass over the videos, once per import.
enum CounterRebuild {
    static func recompute(on connection: any DatabaseConnection) throws {
        try connection.execute("""
            UPDATE videos SET
                likes_count = (SELECT COUNT(*) FROM activities a WHERE a.video_id = videos.id AND a.type = \(ActivityKind.like.sql)),
                comments_count = (SELECT COUNT(*) FROM activities a WHERE a.video_id = videos.id AND a.type = \(ActivityKind.comment.sql)),
                flags_count = (SELECT COUNT(*) FROM activities a WHERE a.video_id = videos.id AND a.type = \(ActivityKind.inappropriate.sql))
            """)
        try connection.execute("""
            UPDATE users SET
                followers_count = (SELECT COUNT(*) FROM activities a WHERE a.to_user_id = users.id AND a.type = \(ActivityKind.follow.sql)),
                following_count = (SELECT COUNT(*) FROM activities a WHERE a.from_user_id = users.id AND a.type = \(ActivityKind.follow.sql)),
                videos_count = (SELECT COUNT(*) FROM videos v WHERE v.owner_id = users.id AND v.hidden = FALSE AND users.banned_at IS NULL)
            """)
        try connection.execute("""
            UPDATE rallies SET videos_count = (
                SELECT COUNT(*) FROM videos v WHERE v.rally_id = rallies.id AND v.hidden = FALSE
                    AND v.owner_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL))
            """)
    }
}
