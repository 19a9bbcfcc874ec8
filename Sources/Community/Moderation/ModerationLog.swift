import Crypto
import Storage

/// One line of the moderation log (API.md "Moderation"): who did what to what, when and why.
package struct ModerationLogEntry: Sendable, Equatable {
    package enum Action: String, Sendable {
        case hide
        /// The video reached `--auto-hide-flags` distinct flags; no actor.
        case autoHide = "auto_hide"
        case restore
        /// The video's flags were cleared.
        case dismiss
        case deleteVideo = "delete_video"
        case deleteComment = "delete_comment"
        case ban
        case unban
        case setRole = "set_role"
        /// A user's profile picture was removed.
        case removePicture = "remove_picture"
    }

    package enum TargetType: String, Sendable {
        case video
        case comment
        case user
    }

    package let seq: Int64
    package let id: String
    /// Nil for automatic actions.
    package let actorID: String?
    package let action: Action
    package let targetType: TargetType
    package let targetID: String
    package let reason: String?
    package let createdAt: Int64
}

/// The SQL of the `moderation_log` table. Entries are written inside the transaction of the
/// action they record, so the log never shows an action that rolled back, nor misses one.
package struct ModerationLogStore: Sendable {
    package init() {}

    package func record(_ action: ModerationLogEntry.Action, by actorID: String?, on targetType: ModerationLogEntry.TargetType, id targetID: String,
                reason: String?, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO moderation_log (id, actor_id, action, target_type, target_id, reason, created_at)
            VALUES (\(try SecureRandom.alphanumericID()), \(actorID), \(action.rawValue), \(targetType.rawValue), \(targetID), \(reason), \(now))
            """)
    }

    /// The log, newest first, after the position `after` (a seq).
    package func page(after: Int64?, limit: Int, on connection: any DatabaseConnection) throws -> [ModerationLogEntry] {
        let position: SQL = after.map { "WHERE seq < \($0)" } ?? ""
        return try connection.fetchAll("""
            SELECT seq, id, actor_id, action, target_type, target_id, reason, created_at FROM moderation_log \(position)
            ORDER BY seq DESC LIMIT \(limit)
            """, reading: { reader in
            ModerationLogEntry(
                seq: try reader.next(), id: try reader.next(), actorID: try reader.next(),
                action: try ModerationLogEntry.Action(rawValue: reader.next()).orThrow(column: "action", expected: "a moderation action"),
                targetType: try ModerationLogEntry.TargetType(rawValue: reader.next()).orThrow(column: "target_type", expected: "a target type"),
                targetID: try reader.next(), reason: try reader.next(), createdAt: try reader.next())
        })
    }
}
