import Foundation
import Storage

/// Rebuilds both feed timelines from the activities and videos, for bulk imports and repairs:
/// `rebuild(on:)` in the caller's transaction (readers see the old timelines or the new ones,
/// never a mix), `rebuild(in:)` in several (for an import, see there).
///
/// `home_timeline` is filled a range of readers at a time, without the videos of hot accounts
/// (`Timelines`), which the home feed merges in at read time. `following_timeline` never materialises the full join of follows and activities (about
/// 54 million rows for 20,000 users and 1.8 million activities): the follow graph is loaded
/// as integer seqs (actor -> followers), the likes, comments and follows of followed people
/// are streamed newest first, and each is counted for every follower of its actor until that
/// reader has `followingDepth`; the position where a reader fills up is its cutoff, and the
/// pass stops once every reader is full. SQLite then writes exactly the chosen rows, reader
/// by reader (the table's key order). Memory: the graph, two numbers per reader, one page.
/// The activity stream sits in a temporary table (SQLite: `temp_store` decides where;
/// PostgreSQL: the session's temporary schema, dropped at commit).
public enum TimelineRebuild {
    /// Rows written to each timeline.
    public struct Counts: Sendable, Equatable {
        public var home = 0
        public var following = 0
    }

    /// Rows read per page of the activity stream, and reader cutoffs per INSERT statement.
    package static let pageSize = 20_000
    package static let rowsPerInsert = 250

    /// How far back each reader's following feed reaches after a rebuild (the same as a follow's).
    public static let defaultFollowingDepth = 200

    /// Followers from which an account is hot and its videos stay out of its followers'
    /// `home_timeline` (`Timelines`; migration 0009 marks with the same number). 1,000, the
    /// default `--fanout-sync-limit`: every other account's new video then reaches all its
    /// followers inside the request.
    public static let defaultHotFollowers = 1_000

    /// Clears and refills `home_timeline` (every user's own videos and those of the people
    /// they follow) and `following_timeline` (for every reader, the `followingDepth` most
    /// recent likes, comments and follows made by the people they follow; never flags), on the
    /// caller's connection and inside the caller's transaction.
    @discardableResult
    public static func rebuild(on connection: any DatabaseConnection, followingDepth: Int = defaultFollowingDepth,
                               hotFollowers: Int = defaultHotFollowers, progress: (String) -> Void) throws -> Counts {
        var counts = Counts()
        // Both tables are filled reader by reader, so the primary key and the indexes that
        // start with user_seq grow at their end. An index led by another column would take
        // millions of random inserts: it is dropped and built again once, after the refill
        // (inside the caller's transaction, so a failure rolls it back too).
        let rebuilt = try indexesNotLedByReader(on: connection)
        for index in rebuilt { try connection.execute(SQL(unsafeSQL: "DROP INDEX \(index.name)")) }
        let spelling = Spelling(connection.dialect)
        try connection.execute(spelling.empty("home_timeline"))
        try connection.execute(spelling.empty("following_timeline"))
        try markHot(followers: hotFollowers, on: connection, progress: progress)

        if let readers = try readerSeqs(on: connection) {
            for first in stride(from: readers.lowerBound, through: readers.upperBound, by: homeReadersPerInsert) {
                counts.home += try insertHome(on: connection, readers: first...min(readers.upperBound, first + homeReadersPerInsert - 1))
            }
        }
        progress("home_timeline: \(counts.home) rows")
        counts.following = try rebuildFollowing(on: connection, depth: followingDepth, progress: progress)
        progress("following_timeline: \(counts.following) rows")
        for index in rebuilt { try connection.execute(SQL(unsafeSQL: index.sql)) }
        progress("timeline indexes built: \(rebuilt.map(\.name).joined(separator: ", "))")
        return counts
    }

    /// The same rebuild in several transactions, for a bulk import: `home_timeline` is
    /// committed `readersPerTransaction` readers at a time, `following_timeline` in one more.
    ///
    /// The rows are those of `rebuild(on:)`; readers may see a timeline half refilled until it
    /// returns, and a rebuild that stops half-way is completed by running it again (it starts
    /// by emptying both tables). Why: one transaction of 19 million rows leaves a WAL of a
    /// gigabyte that the writer must then copy into the database on its own (9 s on the large
    /// benchmark); committed a range at a time, the background checkpointer copies each range
    /// on another core while the next one is written. When a timeline index not led by the
    /// reader exists (dropped and rebuilt around the refill, which must not be left half-done),
    /// this falls back to `rebuild(on:)` in one transaction.
    @discardableResult
    public static func rebuild(in database: any Database, followingDepth: Int = defaultFollowingDepth, hotFollowers: Int = defaultHotFollowers,
                               readersPerTransaction: Int = homeReadersPerInsert, progress: (String) -> Void) throws -> Counts {
        precondition(readersPerTransaction > 0)
        let plan = try database.write { connection -> (inOne: Bool, readers: ClosedRange<Int>?) in
            guard try indexesNotLedByReader(on: connection).isEmpty else { return (true, nil) }
            let spelling = Spelling(connection.dialect)
            try connection.execute(spelling.empty("home_timeline"))
            try connection.execute(spelling.empty("following_timeline"))
            try markHot(followers: hotFollowers, on: connection, progress: progress)
            return (false, try readerSeqs(on: connection))
        }
        if plan.inOne {
            return try database.write { connection in
                try rebuild(on: connection, followingDepth: followingDepth, hotFollowers: hotFollowers, progress: progress)
            }
        }
        var counts = Counts()
        if let readers = plan.readers {
            for first in stride(from: readers.lowerBound, through: readers.upperBound, by: readersPerTransaction) {
                let chunk = first...min(readers.upperBound, first + readersPerTransaction - 1)
                counts.home += try database.write { connection in
                    var rows = 0
                    for start in stride(from: chunk.lowerBound, through: chunk.upperBound, by: homeReadersPerInsert) {
                        rows += try insertHome(on: connection, readers: start...min(chunk.upperBound, start + homeReadersPerInsert - 1))
                    }
                    return rows
                }
            }
        }
        progress("home_timeline: \(counts.home) rows")
        counts.following = try database.write { connection in try rebuildFollowing(on: connection, depth: followingDepth, progress: progress) }
        progress("following_timeline: \(counts.following) rows")
        return counts
    }

    /// Indexes of the timelines whose first column is not `user_seq`, with their SQL.
    private static func indexesNotLedByReader(on connection: any DatabaseConnection) throws -> [(name: String, sql: String)] {
        guard connection.dialect == .sqlite else { return [] }
        return try connection.fetchAll("""
            SELECT name, sql FROM sqlite_master
            WHERE type = 'index' AND tbl_name IN ('home_timeline', 'following_timeline') AND sql IS NOT NULL
            ORDER BY name
            """).map { (name: try $0.decode(at: 0, as: String.self), sql: try $0.decode(at: 1, as: String.self)) }
            .filter { !$0.sql.replacingOccurrences(of: " ", with: "").contains("(user_seq") }
    }

    /// Readers per INSERT of `home_timeline`.
    public static let homeReadersPerInsert = 1_000

    /// The smallest and largest user seq; nil without users.
    private static func readerSeqs(on connection: any DatabaseConnection) throws -> ClosedRange<Int>? {
        guard let row = try connection.fetchOne("SELECT MIN(seq), MAX(seq) FROM users"),
              let low = try row.decode(at: 0, as: Int?.self), let high = try row.decode(at: 1, as: Int?.self) else { return nil }
        return low...high
    }

    /// Writes the `home_timeline` rows of the readers whose seq is in `readers`, in key order.
    ///
    /// One statement for everyone had SQLite sort all 15 million rows of the large benchmark
    /// in temporary files before writing any (54 s); a range's readers are visited in seq
    /// order, so only each reader's own rows need sorting, in memory (41 s). The rows are the
    /// same: a reader's own videos, and the videos of everyone they follow (follows are
    /// activities of type 4: from_user_id follows to_user_id).
    /// Marks the accounts with `followers` or more followers hot (`Timelines`), before the
    /// homes are filled without their videos, and lists who follows them; never unmarks (hot
    /// is sticky).
    private static func markHot(followers: Int, on connection: any DatabaseConnection, progress: (String) -> Void) throws {
        let marked = try connection.execute("""
            INSERT INTO feed_hot_accounts (user_id)
            SELECT id FROM users WHERE followers_count >= \(followers)
            ON CONFLICT DO NOTHING
            """)
        try connection.execute("DELETE FROM feed_hot_follows")
        let follows = try connection.execute("""
            INSERT INTO feed_hot_follows (user_seq, owner_id)
            SELECT r.seq, f.to_user_id FROM feed_hot_accounts h
            JOIN activities f ON f.to_user_id = h.user_id AND f.type = \(ActivityKind.follow.sql)
            JOIN users r ON r.id = f.from_user_id
            ORDER BY r.seq, f.to_user_id
            """)
        progress("feed_hot_accounts: \(marked) more accounts with \(followers) followers or more marked hot; \(follows) follows of hot accounts")
    }

    /// The home rows of a range of readers: their own videos, and those of the people they
    /// follow who are not hot (a hot account's videos are merged in at read time).
    private static func insertHome(on connection: any DatabaseConnection, readers: ClosedRange<Int>) throws -> Int {
        try connection.execute("""
            INSERT INTO home_timeline (user_seq, created_at, video_seq, owner_seq)
            SELECT user_seq, created_at, video_seq, owner_seq FROM (
                SELECT o.seq AS user_seq, v.created_at AS created_at, v.seq AS video_seq, o.seq AS owner_seq
                FROM users o JOIN videos v ON v.owner_id = o.id
                WHERE o.seq BETWEEN \(readers.lowerBound) AND \(readers.upperBound)
                UNION ALL
                SELECT r.seq, v.created_at, v.seq, o.seq
                FROM users r
                JOIN activities f ON f.from_user_id = r.id AND f.type = \(ActivityKind.follow.sql)
                JOIN users o ON o.id = f.to_user_id
                JOIN videos v ON v.owner_id = f.to_user_id
                WHERE r.seq BETWEEN \(readers.lowerBound) AND \(readers.upperBound)
                  AND f.to_user_id NOT IN (SELECT user_id FROM feed_hot_accounts)
            ) AS home
            ORDER BY user_seq, created_at, video_seq
            """)
    }

    private static func rebuildFollowing(on connection: any DatabaseConnection, depth: Int, progress: (String) -> Void) throws -> Int {
        guard depth > 0 else { return 0 }
        // The follow graph as integer seqs: readers numbered densely, and for each actor the
        // numbers of their followers. Read a page at a time.
        var readerNumbers: [Int: Int32] = [:]
        var readerSeqs: [Int] = []
        var followers: [Int: [Int32]] = [:]
        var after = Int64.min
        while true {
            let page = try connection.fetchAll("""
                SELECT f.seq, r.seq, o.seq FROM activities f
                JOIN users r ON r.id = f.from_user_id
                JOIN users o ON o.id = f.to_user_id
                WHERE f.type = \(ActivityKind.follow.sql) AND f.seq > \(after)
                ORDER BY f.seq LIMIT \(pageSize)
                """)
            guard let last = page.last else { break }
            for row in page {
                let reader = try row.decode(at: 1, as: Int.self)
                let number: Int32
                if let known = readerNumbers[reader] {
                    number = known
                } else {
                    number = Int32(readerSeqs.count)
                    readerNumbers[reader] = number
                    readerSeqs.append(reader)
                }
                followers[try row.decode(at: 2, as: Int.self), default: []].append(number)
            }
            after = try last.decode(at: 0, as: Int64.self)
        }
        readerNumbers = [:]
        guard !readerSeqs.isEmpty else { return 0 }
        progress("following_timeline: \(readerSeqs.count) readers follow \(followers.count) people")

        // The likes, comments and follows of anyone followed, newest first, numbered by
        // position; keyed by (actor, position) so each actor's newest are one range.
        let spelling = Spelling(connection.dialect)
        let source = spelling.temporary("following_source"), cutoffs = spelling.temporary("following_cutoff")
        try connection.execute(SQL(unsafeSQL: "DROP TABLE IF EXISTS \(source)"))
        try connection.execute(SQL(unsafeSQL: "DROP TABLE IF EXISTS \(cutoffs)"))
        defer {
            _ = try? connection.execute(SQL(unsafeSQL: "DROP TABLE IF EXISTS \(source)"))
            _ = try? connection.execute(SQL(unsafeSQL: "DROP TABLE IF EXISTS \(cutoffs)"))
        }
        try connection.execute(spelling.createTemporaryTable(
            "following_source", key: "position", columns: "activity_seq BIGINT NOT NULL, actor_seq BIGINT NOT NULL, created_at BIGINT NOT NULL"
        ))
        let sourceCount = try connection.execute("""
            INSERT INTO \(unsafe: source) (position, activity_seq, actor_seq, created_at)
            SELECT ROW_NUMBER() OVER (ORDER BY a.created_at DESC, a.seq DESC), a.seq, u.seq, a.created_at
            FROM activities a JOIN users u ON u.id = a.from_user_id
            WHERE a.type IN (\(ActivityKind.sql(.like, .comment, .follow)))
              AND a.from_user_id IN (SELECT to_user_id FROM activities WHERE type = \(ActivityKind.follow.sql))
            """)
        progress("following_timeline: \(sourceCount) activities by people someone follows")

        // One pass, newest first: each activity counts for every follower of its actor until
        // that reader has `depth`; the position where a reader fills up is its cutoff. Stops
        // as soon as every reader is full. Memory: the graph and one counter per reader.
        var taken = [Int32](repeating: 0, count: readerSeqs.count)
        var cutoff = [Int64](repeating: .max, count: readerSeqs.count)
        var unfilled = readerSeqs.count
        var position: Int64 = 0
        stream: while true {
            let page = try connection.fetchAll("""
                SELECT position, actor_seq FROM \(unsafe: source)
                WHERE position > \(position) AND position <= \(position + Int64(pageSize))
                ORDER BY position
                """)
            if page.isEmpty { break }
            position += Int64(pageSize)
            for row in page {
                guard let readers = followers[try row.decode(at: 1, as: Int.self)] else { continue }
                for reader in readers where taken[Int(reader)] < depth {
                    taken[Int(reader)] += 1
                    if taken[Int(reader)] == depth {
                        cutoff[Int(reader)] = try row.decode(at: 0, as: Int64.self)
                        unfilled -= 1
                        if unfilled == 0 { break stream }
                    }
                }
            }
        }
        followers = [:]
        progress("following_timeline: cutoffs found after \(min(position, Int64(sourceCount))) activities, \(unfilled) readers not full")

        // Then SQLite writes exactly the chosen rows, reader by reader (the table's key
        // order): for each (reader, followee), the followee's activities up to the cutoff.
        try connection.execute(spelling.createTemporaryIndex(
            "following_source_actor", on: "following_source", columns: "actor_seq, position, created_at, activity_seq"
        ))
        try connection.execute(spelling.createTemporaryTable("following_cutoff", key: "reader_seq", columns: "cutoff BIGINT NOT NULL"))
        for start in stride(from: 0, to: readerSeqs.count, by: rowsPerInsert) {
            let rows = (start..<min(readerSeqs.count, start + rowsPerInsert)).map { "(\(readerSeqs[$0]), \(cutoff[$0]))" as SQL }
            try connection.execute("INSERT INTO \(unsafe: cutoffs) (reader_seq, cutoff) VALUES \(SQL.joined(rows, separator: ", "))")
        }
        for table in ["following_source", "following_cutoff"] {
            if let analyze = spelling.analyzeTemporary(table) { try connection.execute(analyze) }
        }
        let join = spelling.orderedJoin
        return try connection.execute("""
            INSERT INTO following_timeline (user_seq, created_at, activity_seq, actor_seq)
            SELECT c.reader_seq, s.created_at, s.activity_seq, s.actor_seq
            FROM \(unsafe: cutoffs) c
            \(unsafe: join) users r ON r.seq = c.reader_seq
            \(unsafe: join) activities f ON f.from_user_id = r.id AND f.type = \(ActivityKind.follow.sql)
            \(unsafe: join) users o ON o.id = f.to_user_id
            \(unsafe: join) \(unsafe: source) s ON s.actor_seq = o.seq AND s.position <= c.cutoff
            \(unsafe: spelling.followingKeyOrder)
            """)
    }
}
