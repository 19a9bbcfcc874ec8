import Storage
import VideoRegistry

/// The moderation queue's SQL: videos with open flags, most flagged first (then newest),
/// over the partial index `videos_flagged`, and each listed video's latest flags.
package struct ModerationQueueStore: Sendable {
    package init() {}

    /// `(flagsCount, createdAt, id)`, the queue's order (the shape of `Positions.top`, whose first value is a count).
    package typealias Position = (likes: Int, createdAt: Int64, id: String)

    /// How many of a video's flags an item carries (the newest); `flagsCount` counts them all.
    package static let flagsPerItem = 20

    /// One flag as the queue shows it.
    package struct Flag: Sendable {
        package let userID: String
        package let reason: String?
        package let createdAt: Int64
    }

    /// Flagged videos (hidden ones included: an automatic hide still awaits a decision),
    /// as `selection` reads them.
    package func videos<Item>(after: Position?, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [Item] {
        let position: SQL = after.map { "AND (v.flags_count, v.created_at, v.id) < (\($0.likes), \($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(selection.columns) FROM videos v \(selection.joins)
            WHERE v.flags_count > 0 \(position)
            ORDER BY v.flags_count DESC, v.created_at DESC, v.id DESC LIMIT \(limit)
            """, reading: selection.read)
    }

    /// A video's newest flags, newest first (`activities_video` index).
    package func flags(videoID: String, on connection: any DatabaseConnection) throws -> [Flag] {
        try connection.fetchAll("""
            SELECT a.from_user_id, a.content, a.created_at FROM activities a
            WHERE a.video_id = \(videoID) AND a.type = \(ActivityKind.inappropriate.sql)
            ORDER BY a.created_at DESC, a.id DESC LIMIT \(Self.flagsPerItem)
            """, reading: { reader in Flag(userID: try reader.next(), reason: try reader.next(), createdAt: try reader.next()) })
    }
}
