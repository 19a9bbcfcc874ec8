import Storage

/// The stored counters a user's content moves, taken out by a ban and put back by the unban
/// (`BuiltInHooks`): each video's `likesCount` and `commentsCount` by the user's likes and
/// comments, and the user's own and each rally's `videosCount` by the user's videos that are
/// not hidden (a hidden video counts nowhere, banned or not: `BuiltInHooks`).
///
/// One UPDATE per counter, each grouping the user's activities per video or videos per rally
/// through the indexes led by the author (`activities_from`, `videos_owner_recent`), inside
/// the ban's transaction. The CHECKs (`>= 0`) would stop a ban that took out more than was
/// counted, instead of storing a negative count.
package enum BanCounters {
    package static func move(contentOf userID: String, by sign: Int, on connection: any DatabaseConnection) throws {
        for (kind, column) in [(ActivityKind.like, "likes_count"), (.comment, "comments_count")] {
            try connection.execute("""
                UPDATE videos SET \(unsafe: column) = \(unsafe: column) + \(sign) * (
                    SELECT COUNT(*) FROM activities a WHERE a.from_user_id = \(userID) AND a.type = \(kind.sql) AND a.video_id = videos.id)
                WHERE id IN (SELECT a.video_id FROM activities a WHERE a.from_user_id = \(userID) AND a.type = \(kind.sql))
                """)
        }
        try connection.execute("""
            UPDATE rallies SET videos_count = videos_count + \(sign) * (
                SELECT COUNT(*) FROM videos v WHERE v.owner_id = \(userID) AND v.rally_id = rallies.id AND v.hidden = FALSE)
            WHERE id IN (SELECT v.rally_id FROM videos v WHERE v.owner_id = \(userID) AND v.hidden = FALSE)
            """)
        try connection.execute("""
            UPDATE users SET videos_count = videos_count + \(sign) * (SELECT COUNT(*) FROM videos v WHERE v.owner_id = \(userID) AND v.hidden = FALSE)
            WHERE id = \(userID)
            """)
    }
}
