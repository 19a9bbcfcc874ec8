import Storage
import VideoRegistry

/// The four feeds of API.md, each one keyset-paged read over an index whose prefix is the
/// reader, so a page costs the same at any depth and for any number of people followed.
struct FeedStore {
    /// `(createdAt, seq)`: the home and following timelines' order.
    typealias SeqPosition = (createdAt: Int64, seq: Int64)
    typealias TimePosition = (createdAt: Int64, id: String)

    /// Videos of the people the reader follows and their own, newest first.
    func home(readerSeq: Int64, viewer: Viewer, after: SeqPosition?, limit: Int, on connection: any DatabaseConnection) throws -> [(Video, SeqPosition)] {
        let position: SQL = after.map { "AND (t.created_at, t.video_seq) < (\($0.createdAt), \($0.seq))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(Video.columns), t.video_seq AS position_seq
            FROM home_timeline t JOIN videos v ON v.seq = t.video_seq
            WHERE t.user_seq = \(readerSeq) \(position) AND \(viewer.visibilityFilter())
            ORDER BY t.created_at DESC, t.video_seq DESC LIMIT \(limit)
            """).map { row in
            let video = try Video(row: row)
            return (video, (video.createdAt, try row.decode("position_seq")))
        }
    }

    /// Likes, comments and follows of the people the reader follows, newest first; those
    /// about a video the reader may not see are left out. The join on the time as well as
    /// the seq leaves out the rows of a deleted activity whose seq SQLite gave to a newer
    /// one before the outbox cleaned them up.
    func following(readerSeq: Int64, viewer: Viewer, after: SeqPosition?, limit: Int, on connection: any DatabaseConnection) throws -> [(Activity, SeqPosition)] {
        let position: SQL = after.map { "AND (t.created_at, t.activity_seq) < (\($0.createdAt), \($0.seq))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(Activity.columns), t.activity_seq AS position_seq
            FROM following_timeline t JOIN activities a ON a.seq = t.activity_seq AND a.created_at = t.created_at
            LEFT JOIN videos v ON v.id = a.video_id
            WHERE t.user_seq = \(readerSeq) \(position) AND (a.video_id IS NULL OR \(viewer.visibilityFilter()))
            ORDER BY t.created_at DESC, t.activity_seq DESC LIMIT \(limit)
            """).map { row in
            let activity = try Activity(row: row)
            return (activity, (activity.createdAt, try row.decode("position_seq")))
        }
    }

    /// Likes, comments and follows aimed at the reader by others, newest first. Flags are
    /// never shown to the video's owner.
    func news(readerID: String, after: TimePosition?, limit: Int, on connection: any DatabaseConnection) throws -> [Activity] {
        let position: SQL = after.map { "AND (a.created_at, a.id) < (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(Activity.columns) FROM activities a
            WHERE a.to_user_id = \(readerID) AND a.from_user_id <> \(readerID) AND a.type <> \(ActivityKind.inappropriate.sql) \(position)
            ORDER BY a.created_at DESC, a.id DESC LIMIT \(limit)
            """).map(Activity.init(row:))
    }

    /// Videos the reader liked, most recently liked first; the position is the like's.
    func likes(readerID: String, viewer: Viewer, after: TimePosition?, limit: Int, on connection: any DatabaseConnection) throws -> [(Video, TimePosition)] {
        let position: SQL = after.map { "AND (a.created_at, a.id) < (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(Video.columns), a.created_at AS liked_at, a.id AS like_id
            FROM activities a JOIN videos v ON v.id = a.video_id
            WHERE a.from_user_id = \(readerID) AND a.type = \(ActivityKind.like.sql) \(position) AND \(viewer.visibilityFilter())
            ORDER BY a.created_at DESC, a.id DESC LIMIT \(limit)
            """).map { row in (try Video(row: row), (try row.decode("liked_at"), try row.decode("like_id"))) }
    }
}
