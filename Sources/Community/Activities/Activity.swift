import Storage

/// What one user did to another, or to their video (Parse's Activity class).
package enum ActivityKind: Int, Sendable, CaseIterable {
    case like = 1
    case comment = 2
    case inappropriate = 3
    case follow = 4

    /// The type as a SQL literal, not a bound value: with a bound type, SQLite cannot know
    /// whether a partial index (`WHERE type = 4`) applies, and re-prepares the statement on
    /// every run (measured: a sixth of a simple read's time went to re-parsing).
    package var sql: SQL {
        switch self {
        case .like: "1"
        case .comment: "2"
        case .inappropriate: "3"
        case .follow: "4"
        }
    }

    /// Several types as a SQL list of literals, for `type IN (…)`.
    package static func sql(_ kinds: ActivityKind...) -> SQL {
        SQL.joined(kinds.map(\.sql), separator: ", ")
    }

    /// The name clients see (API.md "Objects").
    package var name: String {
        switch self {
        case .like: return "like"
        case .comment: return "comment"
        case .inappropriate: return "inappropriate"
        case .follow: return "follow"
        }
    }
}

/// One activity row. `videoID` is set for likes, comments and flags, nil for follows;
/// `content` is a comment's text or a flag's reason.
package struct Activity: Sendable, Equatable {
    package let id: String
    package let kind: ActivityKind
    package let fromUserID: String
    package let toUserID: String
    package let videoID: String?
    package let content: String?
    package let createdAt: Int64
}

extension Activity {
    package static let columns: SQL = "a.id, a.type, a.from_user_id, a.to_user_id, a.video_id, a.content, a.created_at"

    /// Reads a row by position, in the order of `columns` (by name cost a string
    /// comparison per column per row, which showed up in profiles of list pages):
    /// every query that builds one selects `columns` first.
    package init(row: Row) throws {
        var reader = RowReader(row)
        try self.init(reading: &reader)
    }

    /// Reads the next columns of a row, in the order of `columns`.
    package init(reading reader: inout RowReader) throws {
        id = try reader.next()
        guard let kind = ActivityKind(rawValue: try reader.next()) else {
            throw StorageError.decoding(column: "type", expected: "an activity type 1...4")
        }
        self.kind = kind
        fromUserID = try reader.next()
        toUserID = try reader.next()
        videoID = try reader.next()
        content = try reader.next()
        createdAt = try reader.next()
    }
}
