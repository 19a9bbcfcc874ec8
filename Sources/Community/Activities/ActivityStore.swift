import Storage
import VideoRegistry

/// The SQL of the `activities` table.
package struct ActivityStore: Sendable {
    package init() {}

    package typealias Position = (createdAt: Int64, id: String)

    package func find(id: String, on connection: any DatabaseConnection) throws -> Activity? {
        try connection.fetchOne("SELECT \(Activity.columns) FROM activities a WHERE a.id = \(id)").map(Activity.init(row:))
    }

    /// The activity as `selection` reads it.
    package func find<Item>(id: String, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> Item? {
        try connection.fetchOne("SELECT \(selection.columns) FROM activities a \(selection.joins) WHERE a.id = \(id)", reading: selection.read)
    }

    /// The one like, flag or follow from a user (to a video, or to a user for follows).
    package func find(_ kind: ActivityKind, from userID: String, video videoID: String? = nil, to targetID: String? = nil, on connection: any DatabaseConnection) throws -> Activity? {
        let target: SQL = kind == .follow ? "a.to_user_id = \(targetID ?? "")" : "a.video_id = \(videoID ?? "")"
        return try connection.fetchOne("""
            SELECT \(Activity.columns) FROM activities a
            WHERE a.type = \(kind.sql) AND a.from_user_id = \(userID) AND \(target)
            """).map(Activity.init(row:))
    }

    package func insert(_ activity: Activity, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO activities (id, type, from_user_id, to_user_id, video_id, content, created_at)
            VALUES (\(activity.id), \(activity.kind.rawValue), \(activity.fromUserID), \(activity.toUserID),
                    \(activity.videoID), \(activity.content), \(activity.createdAt))
            """)
    }

    package func delete(id: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM activities WHERE id = \(id)")
    }

    /// Every flag on a video (moderation's dismiss).
    package func flags(videoID: String, on connection: any DatabaseConnection) throws -> [Activity] {
        try connection.fetchAll("""
            SELECT \(Activity.columns) FROM activities a WHERE a.video_id = \(videoID) AND a.type = \(ActivityKind.inappropriate.sql)
            """).map(Activity.init(row:))
    }

    /// Every activity from or to a user (account deletion).
    package func involving(userID: String, on connection: any DatabaseConnection) throws -> [Activity] {
        try connection.fetchAll("""
            SELECT \(Activity.columns) FROM activities a WHERE a.from_user_id = \(userID)
            UNION ALL
            SELECT \(Activity.columns) FROM activities a WHERE a.to_user_id = \(userID) AND a.from_user_id <> \(userID)
            """).map(Activity.init(row:))
    }

    /// A video's comments, oldest first, as `selection` reads them.
    package func comments<Item>(videoID: String, viewer: Viewer, after: Position?, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [Item] {
        let position: SQL = after.map { "AND (a.created_at, a.id) > (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(selection.columns) FROM activities a \(selection.joins)
            WHERE a.video_id = \(videoID) AND a.type = \(ActivityKind.comment.sql) \(position) AND \(viewer.authorFilter())
            ORDER BY a.created_at, a.id LIMIT \(limit)
            """, reading: selection.read)
    }

    /// A video's likes, most recent first (`.newer`: above `after`, nearest first).
    package func likes(videoID: String, viewer: Viewer, after: Position?, direction: KeysetDirection = .older, limit: Int,
                       on connection: any DatabaseConnection) throws -> [Activity] {
        let position: SQL = after.map { "AND (a.created_at, a.id) \(direction.comparison) (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(Activity.columns) FROM activities a
            WHERE a.video_id = \(videoID) AND a.type = \(ActivityKind.like.sql) \(position) AND \(viewer.authorFilter())
            ORDER BY a.created_at \(direction.order), a.id \(direction.order) LIMIT \(limit)
            """).map(Activity.init(row:))
    }

    /// Follows of a user (`direction` .followers: who follows them; .following: whom they
    /// follow), newest first (`seek` .newer: above `after`, nearest first).
    package func follows(_ direction: FollowDirection, userID: String, after: Position?, seek: KeysetDirection = .older, limit: Int,
                         on connection: any DatabaseConnection) throws -> [Activity] {
        let position: SQL = after.map { "AND (a.created_at, a.id) \(seek.comparison) (\($0.createdAt), \($0.id))" } ?? ""
        let column: SQL = direction == .followers ? "a.to_user_id" : "a.from_user_id"
        return try connection.fetchAll("""
            SELECT \(Activity.columns) FROM activities a
            WHERE \(column) = \(userID) AND a.type = \(ActivityKind.follow.sql) \(position)
            ORDER BY a.created_at \(seek.order), a.id \(seek.order) LIMIT \(limit)
            """).map(Activity.init(row:))
    }

    /// Of `userIDs`, those the user follows.
    package func followed(by userID: String, among userIDs: [String], on connection: any DatabaseConnection) throws -> Set<String> {
        guard !userIDs.isEmpty else { return [] }
        let list = SQL.joined(userIDs.map { "\($0)" }, separator: ", ")
        return Set(try connection.fetchAll("""
            SELECT to_user_id FROM activities
            WHERE type = \(ActivityKind.follow.sql) AND from_user_id = \(userID) AND to_user_id IN (\(list))
            """).map { try $0.decode("to_user_id", as: String.self) })
    }
}

package enum FollowDirection: Sendable {
    case followers
    case following
}
