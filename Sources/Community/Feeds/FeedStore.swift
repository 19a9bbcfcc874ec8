import Storage
import VideoRegistry

/// The four feeds of API.md, each one keyset-paged read over an index whose prefix is the
/// reader, so a page costs the same at any depth and for any number of people followed.
///
/// Each takes the `Selection` its items are read with (`Presenter`'s), so a page is one
/// statement (two for a home feed that merges hot accounts: see `home`); the feed's own
/// position columns come first in each row. Each reads down from its position (`.older`) or,
/// for a refresh (`.newer`), up from it, nearest first.
package struct FeedStore {
    package init() {}

    /// `(createdAt, seq)`: the home and following timelines' order.
    package typealias SeqPosition = (createdAt: Int64, seq: Int64)
    package typealias TimePosition = (createdAt: Int64, id: String)

    /// Videos of the people the reader follows and their own, newest first. `selection`
    /// reads a video `v`.
    ///
    /// Most come from the reader's `home_timeline` rows. The videos of hot accounts
    /// (`Timelines`: very many followers) are not fanned out there; they are merged in here,
    /// one keyset seek per hot account the reader follows, into `videos_owner_home`, which is
    /// in the feed's order. SQLite merges the sorted arms lazily (`MERGE (UNION)`), so a page
    /// reads about `limit` rows plus one per arm, at any depth. UNION drops a video found in
    /// both: an account that turned hot keeps the rows fanned out before. The arms leave
    /// hidden videos out; banned hot accounts are left out of the list of arms.
    package func home<Item>(readerSeq: Int64, viewer: Viewer, after: SeqPosition?, direction: KeysetDirection = .older, limit: Int, selecting selection: Selection<Item>,
                    hotArmsPerStatement: Int = FeedStore.hotArmsPerStatement, on connection: any DatabaseConnection) throws -> [(Item, SeqPosition)] {
        let timelinePosition: SQL = after.map { "AND (t.created_at, t.video_seq) \(direction.comparison) (\($0.createdAt), \($0.seq))" } ?? ""
        let timelineRows: SQL = "t.user_seq = \(readerSeq) \(timelinePosition) AND \(viewer.visibilityFilter())"
        let hot = try hotFollowees(readerSeq: readerSeq, viewer: viewer, on: connection)
        if hot.isEmpty {
            return try connection.fetchAll("""
                SELECT t.created_at, t.video_seq, \(selection.columns)
                FROM home_timeline t JOIN videos v ON v.seq = t.video_seq \(selection.joins)
                WHERE \(timelineRows)
                ORDER BY t.created_at \(direction.order), t.video_seq \(direction.order) LIMIT \(limit)
                """, reading: Self.positioned(selection))
        }
        let timeline: SQL = "SELECT t.created_at, t.video_seq FROM home_timeline t JOIN videos v ON v.seq = t.video_seq WHERE \(timelineRows)"
        let videoPosition: SQL = after.map { "AND (v.created_at, v.seq) \(direction.comparison) (\($0.createdAt), \($0.seq))" } ?? ""
        // The reader is never a hot arm's owner (nobody follows themselves), so the
        // visibility filter comes down to `hidden` there.
        let shown: SQL = viewer.canModerate ? "" : "AND v.hidden = FALSE"
        let hotArms: [SQL] = hot.map { "SELECT v.created_at, v.seq AS video_seq FROM videos v WHERE v.owner_id = \($0) \(videoPosition) \(shown)" }
        // SQLite takes at most 500 terms in one compound SELECT: a reader who follows more hot
        // accounts gets a page per group of arms, merged here (the union of each group's first
        // page holds the first page of the whole, and a video fanned out before its owner
        // turned hot may be in two groups).
        var pages: [[(Item, SeqPosition)]] = []
        for first in stride(from: 0, to: hotArms.count, by: hotArmsPerStatement) {
            var arms = Array(hotArms[first..<min(hotArms.count, first + hotArmsPerStatement)])
            if first == 0 { arms.insert(timeline, at: 0) }
            if connection.dialect == .postgres {
                // PostgreSQL reads each arm whole unless told to stop: bound each one to a page.
                arms = arms.map { "(\($0) ORDER BY 1 \(direction.order), 2 \(direction.order) LIMIT \(limit))" }
            }
            // On PostgreSQL a group of one arm is that arm, bounded already: a second ORDER BY
            // after it is a syntax error (a reader following 201 hot accounts met it).
            let merged: SQL = connection.dialect == .postgres && arms.count == 1
                ? arms[0] : "(\(SQL.joined(arms, separator: " UNION ")) ORDER BY 1 \(direction.order), 2 \(direction.order) LIMIT \(limit))"
            // No ORDER BY around the join: SQLite would sort the page again in a sorter whose
            // 53 KB buffer glibc handed back to the kernel after every request (an madvise and
            // the page faults to touch it again: a tenth of a home request on large). The
            // page is put in order below instead.
            pages.append(try connection.fetchAll("""
                SELECT m.created_at, m.video_seq, \(selection.columns)
                FROM \(merged) m
                JOIN videos v ON v.seq = m.video_seq \(selection.joins)
                """, reading: Self.positioned(selection)))
        }
        var seen = Set<Int64>()
        return pages.joined()
            .sorted { direction == .older ? ($0.1.createdAt, $0.1.seq) > ($1.1.createdAt, $1.1.seq)
                                          : ($0.1.createdAt, $0.1.seq) < ($1.1.createdAt, $1.1.seq) }
            .filter { seen.insert($0.1.seq).inserted }
            .prefix(limit).map { $0 }
    }

    /// Hot accounts merged per statement (SQLite's compound SELECT limit is 500 terms).
    package static let hotArmsPerStatement = 200

    /// The hot accounts the reader follows (`feed_hot_follows`, one range); banned ones only
    /// for viewers who moderate, as everywhere.
    private func hotFollowees(readerSeq: Int64, viewer: Viewer, on connection: any DatabaseConnection) throws -> [String] {
        let standing: SQL = viewer.canModerate ? "" : "AND h.owner_id NOT IN (\(Viewer.bannedUserIDs))"
        return try connection.fetchAll("SELECT h.owner_id FROM feed_hot_follows h WHERE h.user_seq = \(readerSeq) \(standing)")
            .map { try $0.decode(at: 0, as: String.self) }
    }

    /// Likes, comments and follows of the people the reader follows, newest first; those
    /// about a video the reader may not see are left out. `selection` reads an activity `a`
    /// and joins its video as `v` (left join), which the filter uses. The join on the time as
    /// well as the seq leaves out the rows of a deleted activity whose seq SQLite gave to a
    /// newer one before the outbox cleaned them up.
    package func following<Item>(readerSeq: Int64, viewer: Viewer, after: SeqPosition?, direction: KeysetDirection = .older, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [(Item, SeqPosition)] {
        let position: SQL = after.map { "AND (t.created_at, t.activity_seq) \(direction.comparison) (\($0.createdAt), \($0.seq))" } ?? ""
        return try connection.fetchAll("""
            SELECT t.created_at, t.activity_seq, \(selection.columns)
            FROM following_timeline t JOIN activities a ON a.seq = t.activity_seq AND a.created_at = t.created_at \(selection.joins)
            WHERE t.user_seq = \(readerSeq) \(position) AND (a.video_id IS NULL OR \(viewer.visibilityFilter())) AND \(viewer.authorFilter())
            ORDER BY t.created_at \(direction.order), t.activity_seq \(direction.order) LIMIT \(limit)
            """, reading: Self.positioned(selection))
    }

    /// Likes, comments and follows aimed at the reader by others, newest first. Flags are
    /// never shown to the video's owner. `selection` reads an activity `a`.
    package func news<Item>(readerID: String, viewer: Viewer, after: TimePosition?, direction: KeysetDirection = .older, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [(Item, TimePosition)] {
        let position: SQL = after.map { "AND (a.created_at, a.id) \(direction.comparison) (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT a.created_at, a.id, \(selection.columns) FROM activities a \(selection.joins)
            WHERE a.to_user_id = \(readerID) AND a.from_user_id <> \(readerID) AND a.type <> \(ActivityKind.inappropriate.sql) \(position)
              AND \(viewer.authorFilter())
            ORDER BY a.created_at \(direction.order), a.id \(direction.order) LIMIT \(limit)
            """, reading: Self.positioned(selection))
    }

    /// Videos the reader liked, most recently liked first; the position is the like's.
    /// `selection` reads a video `v`.
    package func likes<Item>(readerID: String, viewer: Viewer, after: TimePosition?, direction: KeysetDirection = .older, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [(Item, TimePosition)] {
        let position: SQL = after.map { "AND (a.created_at, a.id) \(direction.comparison) (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT a.created_at, a.id, \(selection.columns)
            FROM activities a JOIN videos v ON v.id = a.video_id \(selection.joins)
            WHERE a.from_user_id = \(readerID) AND a.type = \(ActivityKind.like.sql) \(position) AND \(viewer.visibilityFilter())
            ORDER BY a.created_at \(direction.order), a.id \(direction.order) LIMIT \(limit)
            """, reading: Self.positioned(selection))
    }

    /// Reads the position's two columns, then the item.
    private static func positioned<Item, First: DatabaseValueConvertible, Second: DatabaseValueConvertible>(
        _ selection: Selection<Item>
    ) -> (inout RowReader) throws -> (Item, (First, Second)) {
        { reader in
            let position: (First, Second) = (try reader.next(), try reader.next())
            return (try selection.read(&reader), position)
        }
    }
}
