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
    /// Following rows held in memory per pass (about 24 bytes each).
    static let rowsPerPass = 2_000_000

    /// Clears and refills `home_timeline` (every user's own videos and those of the people
    /// they follow) and `following_timeline` (for every reader, the `followingDepth` most
    /// recent likes, comments and follows made by the people they follow; never flags).
    @discardableResult
    public static func rebuild(on connection: any DatabaseConnection, followingDepth: Int = 1000, progress: (String) -> Void) throws -> Counts {
        var counts = Counts()
        // The secondary indexes are dropped and built again after the load: one sort each
        // instead of millions of random inserts. All of it is inside the caller's transaction,
        // so a failure rolls the indexes back too.
        let indexes = connection.dialect == .sqlite ? try connection.fetchAll("""
            SELECT name, sql FROM sqlite_master
            WHERE type = 'index' AND tbl_name IN ('home_timeline', 'following_timeline') AND sql IS NOT NULL
            ORDER BY name
            """).map { (name: try $0.decode(at: 0, as: String.self), sql: try $0.decode(at: 1, as: String.self)) } : []
        for index in indexes { try connection.execute(SQL(unsafeSQL: "DROP INDEX \(index.name)")) }
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
        for index in indexes { try connection.execute(SQL(unsafeSQL: index.sql)) }
        progress("timeline indexes rebuilt")
        return counts
    }

    /// One following_timeline row kept in memory before it is written.
    private struct Entry {
        var createdAt: Int64
        var activity: Int64
        var actor: Int
    }

    private static func rebuildFollowing(on connection: any DatabaseConnection, depth: Int, progress: (String) -> Void) throws -> Int {
        guard depth > 0 else { return 0 }
        // The follow graph as integer seqs: readers numbered densely in seq order, and for
        // each actor the (ascending) numbers of their followers. Read a page at a time.
        var pairs: [(reader: Int, actor: Int)] = []
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
            for row in page { pairs.append((try row.decode(at: 1, as: Int.self), try row.decode(at: 2, as: Int.self))) }
            after = try last.decode(at: 0, as: Int64.self)
        }
        let readerSeqs = Array(Set(pairs.map(\.reader))).sorted()
        guard !readerSeqs.isEmpty else { return 0 }
        let readerNumber = Dictionary(uniqueKeysWithValues: readerSeqs.enumerated().map { ($1, $0) })
        var followers: [Int: [Int32]] = [:]
        for pair in pairs { followers[pair.actor, default: []].append(Int32(readerNumber[pair.reader]!)) }
        pairs = []
        for actor in followers.keys { followers[actor]!.sort() }
        progress("following_timeline: \(readerSeqs.count) readers follow \(followers.count) people")

        // The likes, comments and follows of anyone followed, newest first, numbered so
        // that they can be read back in pages by position.
        try connection.execute("DROP TABLE IF EXISTS temp.following_source")
        try connection.execute("""
            CREATE TEMP TABLE following_source (
                position INTEGER PRIMARY KEY, activity_seq INTEGER NOT NULL, actor_seq INTEGER NOT NULL, created_at INTEGER NOT NULL
            )
            """)
        defer { _ = try? connection.execute("DROP TABLE IF EXISTS temp.following_source") }
        let sourceCount = try connection.execute("""
            INSERT INTO temp.following_source (position, activity_seq, actor_seq, created_at)
            SELECT ROW_NUMBER() OVER (ORDER BY a.created_at DESC, a.seq DESC), a.seq, u.seq, a.created_at
            FROM activities a JOIN users u ON u.id = a.from_user_id
            WHERE a.type IN (1, 2, 4)
              AND a.from_user_id IN (SELECT to_user_id FROM activities WHERE type = 4)
            """)
        progress("following_timeline: \(sourceCount) activities by people someone follows")

        // Readers in passes of about `rowsPerPass / depth`: each pass streams the activities
        // newest first until its readers are full, keeps their rows bucketed per reader, and
        // writes them in primary-key order (reader, then oldest first), which fills the
        // B-tree sequentially instead of at random.
        let readersPerPass = max(1, rowsPerPass / depth)
        var written = 0
        var lo = 0
        while lo < readerSeqs.count {
            let hi = min(readerSeqs.count, lo + readersPerPass)
            var buckets = [[Entry]](repeating: [], count: hi - lo)
            var unfilled = hi - lo
            var position: Int64 = 0
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
                    var index = lowerBound(readers, Int32(lo))
                    guard index < readers.count, readers[index] < hi else { continue }
                    let entry = Entry(createdAt: try row.decode(at: 2, as: Int64.self), activity: try row.decode(at: 0, as: Int64.self), actor: actor)
                    while index < readers.count, readers[index] < hi {
                        let bucket = Int(readers[index]) - lo
                        if buckets[bucket].count < depth {
                            buckets[bucket].append(entry)
                            if buckets[bucket].count == depth {
                                unfilled -= 1
                                if unfilled == 0 { break stream }
                            }
                        }
                        index += 1
                    }
                }
            }
            var batch: [(reader: Int, entry: Entry)] = []
            batch.reserveCapacity(rowsPerInsert)
            for (offset, bucket) in buckets.enumerated() {
                let reader = readerSeqs[lo + offset]
                // Streamed newest first; the key orders oldest first.
                for entry in bucket.reversed() {
                    batch.append((reader, entry))
                    if batch.count == rowsPerInsert {
                        try insert(batch, on: connection)
                        written += batch.count
                        batch.removeAll(keepingCapacity: true)
                    }
                }
            }
            if !batch.isEmpty {
                try insert(batch, on: connection)
                written += batch.count
            }
            progress("following_timeline: readers \(hi) of \(readerSeqs.count), \(written) rows")
            lo = hi
        }
        return written
    }

    /// The first index whose element is not below `value` (`elements` ascending).
    private static func lowerBound(_ elements: [Int32], _ value: Int32) -> Int {
        var low = 0, high = elements.count
        while low < high {
            let mid = (low + high) / 2
            if elements[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func insert(_ rows: [(reader: Int, entry: Entry)], on connection: any DatabaseConnection) throws {
        let values = SQL.joined(rows.map { "(\($0.reader), \($0.entry.createdAt), \($0.entry.activity), \($0.entry.actor))" }, separator: ", ")
        try connection.execute("INSERT INTO following_timeline (user_seq, created_at, activity_seq, actor_seq) VALUES \(values)")
    }
}
