import Storage

/// Recomputes every stored counter from the rows it counts, set-based.
///
/// Each correlated COUNT(*) is an index range count: activities by (video_id, type …),
/// (to_user_id, type …) and (from_user_id, type …), videos by (owner_id …) and (rally_id …),
/// so the cost is one index probe per counted row's owner, never a scan per row.
enum CounterRebuild {
    static func recompute(on connection: any DatabaseConnection) throws {
        try connection.execute("""
            UPDATE videos SET
                likes_count = (SELECT COUNT(*) FROM activities a WHERE a.video_id = videos.id AND a.type = 1),
                comments_count = (SELECT COUNT(*) FROM activities a WHERE a.video_id = videos.id AND a.type = 2),
                flags_count = (SELECT COUNT(*) FROM activities a WHERE a.video_id = videos.id AND a.type = 3)
            """)
        try connection.execute("""
            UPDATE users SET
                followers_count = (SELECT COUNT(*) FROM activities a WHERE a.to_user_id = users.id AND a.type = 4),
                following_count = (SELECT COUNT(*) FROM activities a WHERE a.from_user_id = users.id AND a.type = 4),
                videos_count = (SELECT COUNT(*) FROM videos v WHERE v.owner_id = users.id)
            """)
        try connection.execute("""
            UPDATE rallies SET videos_count = (SELECT COUNT(*) FROM videos v WHERE v.rally_id = rallies.id)
            """)
    }
}
