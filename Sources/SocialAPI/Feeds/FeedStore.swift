import Storage
import VideoRegistry

/// The four feeds of API.md, each one keyset-paged read over an index whose prefix is the
/// reader, so a page costs the same at any depth and for any number of people followed.
///
/// Each takes the `Selection` its items are read with (`Presenter`'s), so a page is one
/// statement; the feed's own position columns come first in each row.
struct FeedStore {
    /// `(createdAt, seq)`: the home and following timelines' order.
    typealias SeqPosition = (createdAt: Int64, seq: Int64)
    typealias TimePosition = (createdAt: Int64, id: String)

    /// Videos of the people the reader follows and their own, newest first. `selection`
    /// reads a video `v`.
    func home<Item>(readerSeq: Int64, viewer: Viewer, after: SeqPosition?, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [(Item, SeqPosition)] {
        let position: SQL = after.map { "AND (t.created_at, t.video_seq) < (\($0.createdAt), \($0.seq))" } ?? ""
        return try connection.fetchAll("""
            SELECT t.created_at, t.video_seq, \(selection.columns)
            FROM home_timeline t JOIN videos v ON v.seq = t.video_seq \(selection.joins)
            WHERE t.user_seq = \(readerSeq) \(position) AND \(viewer.visibilityFilter())
            ORDER BY t.created_at DESC, t.video_seq DESC LIMIT \(limit)
            """, reading: Self.positioned(selection))
    }

    /// Likes, comments and follows of the people the reader follows, newest first; those
    /// about a video the reader may not see are left out. `selection` reads an activity `a`
    /// and joins its video as `v` (left join), which the filter uses. The join on the time as
    /// well as the seq leaves out the rows of a deleted activity whose seq SQLite gave to a
    /// newer one before the outbox cleaned them up.
    func following<Item>(readerSeq: Int64, viewer: Viewer, after: SeqPosition?, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [(Item, SeqPosition)] {
        let position: SQL = after.map { "AND (t.created_at, t.activity_seq) < (\($0.createdAt), \($0.seq))" } ?? ""
        return try connection.fetchAll("""
            SELECT t.created_at, t.activity_seq, \(selection.columns)
            FROM following_timeline t JOIN activities a ON a.seq = t.activity_seq AND a.created_at = t.created_at \(selection.joins)
            WHERE t.user_seq = \(readerSeq) \(position) AND (a.video_id IS NULL OR \(viewer.visibilityFilter())) AND \(viewer.authorFilter())
            ORDER BY t.created_at DESC, t.activity_seq DESC LIMIT \(limit)
            """, reading: Self.positioned(selection))
    }

    /// Likes, comments and follows aimed at the reader by others, newest first. Flags are
    /// never shown to the video's owner. `selection` reads an activity `a`.
    func news<Item>(readerID: String, viewer: Viewer, after: TimePosition?, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [(Item, TimePosition)] {
        let position: SQL = after.map { "AND (a.created_at, a.id) < (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT a.created_at, a.id, \(selection.columns) FROM activities a \(selection.joins)
            WHERE a.to_user_id = \(readerID) AND a.from_user_id <> \(readerID) AND a.type <> \(ActivityKind.inappropriate.sql) \(position)
              AND \(viewer.authorFilter())
            ORDER BY a.created_at DESC, a.id DESC LIMIT \(limit)
            """, reading: Self.positioned(selection))
    }

    /// Videos the reader liked, most recently liked first; the position is the like's.
    /// `selection` reads a video `v`.
    func likes<Item>(readerID: String, viewer: Viewer, after: TimePosition?, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [(Item, TimePosition)] {
        let position: SQL = after.map { "AND (a.created_at, a.id) < (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT a.created_at, a.id, \(selection.columns)
            FROM activities a JOIN videos v ON v.id = a.video_id \(selection.joins)
            WHERE a.from_user_id = \(readerID) AND a.type = \(ActivityKind.like.sql) \(position) AND \(viewer.visibilityFilter())
            ORDER BY a.created_at DESC, a.id DESC LIMIT \(limit)
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
