import Auth
import Community

/// An `Activity` row as imported; its users and video are checked against the database.
struct ImportedActivity: Equatable {
    var id: String
    /// 1 like, 2 comment, 3 flag, 4 follow.
    var type: Int
    var fromUserID: String
    var toUserID: String
    /// Nil exactly for follows.
    var videoID: String?
    var content: String?
    var createdAt: Int64
}

/// `Activity` -> `activities`: types 1 like, 2 comment, 3 inappropriate (flag), 4 follow.
enum ActivityMapper {
    static let contentLength = 500

    static func map(_ fields: ParseFields, now: Int64) -> Mapped<ImportedActivity> {
        let id: String
        switch fields.checkedObjectId {
        case .success(let checked): id = checked
        case .failure(let skip): return .skip(skip.reason)
        }
        guard let type = fields.int("type") else { return .skip("missing type") }
        guard let kind = ActivityKind(rawValue: type) else { return .skip("unknown type \(type)") }
        guard let from = fields.pointer("fromUser") else { return .skip("missing fromUser") }
        guard let to = fields.pointer("toUser") else { return .skip("missing toUser") }
        var videoID: String?
        if kind != .follow {
            guard let video = fields.pointer("video") else { return .skip("missing video") }
            videoID = video
        } else if from == to {
            return .skip("follow of oneself")
        }
        let text = cut(TextRules.trimmed(fields.string("content") ?? "").replacingNULs(), to: contentLength)
        var content: String?
        switch kind {
        case .comment:
            guard !text.isEmpty else { return .skip("empty comment") }
            content = text
        case .inappropriate:
            content = text.isEmpty ? nil : text
        case .like, .follow:
            content = nil
        }
        let times = Timestamps(fields, now: now)
        return .row(ImportedActivity(
            id: id, type: type, fromUserID: from, toUserID: to, videoID: videoID, content: content, createdAt: times.createdAt
        ), notes: times.notes)
    }
}
