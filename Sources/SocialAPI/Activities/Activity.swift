import Storage

/// What one user did to another, or to their video (Parse's Activity class).
enum ActivityKind: Int, Sendable, CaseIterable {
    case like = 1
    case comment = 2
    case inappropriate = 3
    case follow = 4

    /// The name clients see (API.md "Objects").
    var name: String {
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
struct Activity: Sendable, Equatable {
    let id: String
    let kind: ActivityKind
    let fromUserID: String
    let toUserID: String
    let videoID: String?
    let content: String?
    let createdAt: Int64
}

extension Activity {
    static let columns: SQL = "a.id, a.type, a.from_user_id, a.to_user_id, a.video_id, a.content, a.created_at"

    init(row: Row) throws {
        id = try row.decode("id")
        guard let kind = ActivityKind(rawValue: try row.decode("type")) else {
            throw StorageError.decoding(column: "type", expected: "an activity type 1...4")
        }
        self.kind = kind
        fromUserID = try row.decode("from_user_id")
        toUserID = try row.decode("to_user_id")
        videoID = try row.decode("video_id")
        content = try row.decode("content")
        createdAt = try row.decode("created_at")
    }
}
