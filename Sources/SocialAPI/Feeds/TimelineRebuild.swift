import Storage

/// Rebuilds both feed timelines from the activities and videos, for bulk imports and repairs.
///
/// Runs on the caller's connection, inside the caller's transaction: readers see the old
/// timelines or the new ones, never a mix. Cost at 20,000 users, 100,000 videos and
/// 1.8 million activities: one INSERT … SELECT for `home_timeline`; for
/// `following_timeline`, one pass over the likes, comments and follows, newest first,
/// handing each to the followers of its actor who still have room. The full join of
/// follows and activities (tens of millions of rows) is never materialised: memory is the
/// follow graph as integer seqs, one counter per reader, and one page or batch of rows.
public enum TimelineRebuild {
    /// Rows written to each timeline.
    public struct Counts: Sendable, Equatable {
        public var home = 0
        public var following = 0
    }

    /// Rows read per page of the activity stream, and rows per INSERT statement.
    static let pageSize = 20_000
    static let rowsPerInsert = 250

    /// Clears and refills `home_timeline` (every user's own videos and those of the people
    /// they follow) and `following_timeline` (for every reader, the `followingDepth` most
    /// recent likes, comments and follows made by the people they follow; never flags).
    @discardableResult
    public static func rebuild(on connection: any DatabaseConnection, followingDepth: Int = 1000, progress: (String) -> Void) throws -> Counts {
        var counts = Counts()
        try connection.execute("DELETE FROM home_timeline")
        try connection.execute("DELETE FROM following_timeline")

        // Follows are activities of type 4: from_user_id follows to_user_id. Sorted, so the
        // B-tree is filled in key order.
        counts.home = try connection.execute("""
            INSERT INTO home_timeline (user_seq, created_at, video_seq, owner_seq)
            SELECT user_seq, created_at, video_seq, owner_seq FROM (
                SELECT o.seq AS user_seq, v.created_at AS created_at, v.seq AS video_seq, o.seq AS owner_seq
                FROM videos v JOIN users o ON o.id = v.owner_id
                UNION ALL
                SELECT r.seq, v.created_at, v.seq, o.seq
                FROM activities f
                JOIN users r ON r.id = f.from_user_id
                JOIN users o ON o.id = f.to_user_id
                JOIN videos v ON v.owner_id = f.to_user_id
                WHERE f.type = 4
            )
            ORDER BY user_seq, created_at, video_seq
            """)
        progress("home_timeline: \(counts.home) rows")
        counts.following = try rebuildFollowing(on: connection, depth: followingDepth, progress: progress)
        progress("following_timeline: \(counts.following) rows")
        return counts
    }

    private static func rebuildFollowing(on connection: any DatabaseConnection, depth: Int, progress: (String) -> Void) throws -> Int {
        guard depth > 0 else { return 0 }
        // actor seq -> the seqs of their followers, read a page at a time by activity seq.
        var followers: [Int: [Int]] = [:]
        var room: [Int: Int] = [:]
        var after = Int64.min
        while true {
            let page = try connection.fetchAll("""
                SELECT f.seq, r.seq, o.seq FROM activities f
                JOIN users r ON r.id = f.from_user_id
                JOIN users o ON o.id = f.to_user_id
                WHERE f.type = 4 AND f.seq > \(after)
                ORDER BY f.seq LIMIT \(pageSize)
                """)
            guard let last = page.last else { break }
            for row in page {
                let reader = try row.decode(at: 1, as: Int.self)
                followers[try row.decode(at: 2, as: Int.self), default: []].append(reader)
                room[reader] = depth
            }
            after = try last.decode(at: 0, as: Int64.self)
        }
        var unfilled = room.count
        guard unfilled > 0 else { return 0 }

        // The likes, comments and follows of anyone followed, newest first, numbered so
        // that they can be read back in pages by position.
        try connection.execute("DROP TABLE IF EXISTS temp.following_source")
        try connection.execute("""
            CREATE TEMP TABLE following_source (
                position INTEGER PRIMARY KEY, activity_seq INTEGER NOT NULL, actor_seq INTEGER NOT NULL, created_at INTEGER NOT NULL
            )
            """)
        defer { _ = try? connection.execute("DROP TABLE IF EXISTS temp.following_source") }
        try connection.execute("""
            INSERT INTO temp.following_source (position, activity_seq, actor_seq, created_at)
            SELECT ROW_NUMBER() OVER (ORDER BY a.created_at DESC, a.seq DESC), a.seq, u.seq, a.created_at
            FROM activities a JOIN users u ON u.id = a.from_user_id
            WHERE a.type IN (1, 2, 4)
              AND a.from_user_id IN (SELECT to_user_id FROM activities WHERE type = 4)
            """)

        var written = 0
        var batch: [(reader: Int, createdAt: Int64, activity: Int64, actor: Int)] = []
        batch.reserveCapacity(rowsPerInsert)
        var position: Int64 = 0
        var streamed = 0
        stream: while unfilled > 0 {
            let page = try connection.fetchAll("""
                SELECT activity_seq, actor_seq, created_at FROM temp.following_source
                WHERE position > \(position) AND position <= \(position + Int64(pageSize))
                ORDER BY position
                """)
            if page.isEmpty { break }
            position += Int64(pageSize)
            for row in page {
                let actor = try row.decode(at: 1, as: Int.self)
                guard let readers = followers[actor] else { continue }
                let activity = try row.decode(at: 0, as: Int64.self)
                let createdAt = try row.decode(at: 2, as: Int64.self)
                for reader in readers {
                    guard let left = room[reader], left > 0 else { continue }
                    room[reader] = left - 1
                    if left == 1 { unfilled -= 1 }
                    batch.append((reader, createdAt, activity, actor))
                    if batch.count == rowsPerInsert {
                        try insert(batch, on: connection)
                        written += batch.count
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if unfilled == 0 { break stream }
            }
            streamed += page.count
            if streamed % 200_000 < pageSize {
                progress("following_timeline: \(streamed) activities streamed, \(written + batch.count) rows, \(unfilled) readers not yet full")
            }
        }
        if !batch.isEmpty {
            try insert(batch, on: connection)
            written += batch.count
        }
        return written
    }

    private static func insert(_ rows: [(reader: Int, createdAt: Int64, activity: Int64, actor: Int)], on connection: any DatabaseConnection) throws {
        let values = SQL.joined(rows.map { "(\($0.reader), \($0.createdAt), \($0.activity), \($0.actor))" }, separator: ", ")
        try connection.execute("INSERT INTO following_timeline (user_seq, created_at, activity_seq, actor_seq) VALUES \(values)")
    }
}
