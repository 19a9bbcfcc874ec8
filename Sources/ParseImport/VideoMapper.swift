import Auth
import VideoRegistry

/// A `Video` row as imported; the rally's days and the owner are checked against the database.
struct ImportedVideo: Equatable {
    var id: String
    var youtubeID: String
    var title: String
    var description: String
    var rallyID: String
    var day: Int
    var ownerID: String
    var createdAt: Int64
    var updatedAt: Int64
}

/// `Video` -> `videos`: the YouTube id is validated, the title trimmed and cut to 100
/// characters ("Untitled" when empty), the description cut to 2,000. `nLikes` and
/// `nComments` are ignored: counters are recomputed from the activities.
enum VideoMapper {
    static let titleLength = 100
    static let descriptionLength = 2_000

    static func map(_ fields: ParseFields, now: Int64) -> Mapped<ImportedVideo> {
        let id: String
        switch fields.checkedObjectId {
        case .success(let checked): id = checked
        case .failure(let skip): return .skip(skip.reason)
        }
        guard let youtube = fields.string("youtubeID").flatMap(YouTubeID.init(parsing:)) else { return .skip("invalid YouTube id") }
        guard let ownerID = fields.pointer("owner") else { return .skip("missing owner") }
        guard let rallyID = fields.pointer("rallyId") else { return .skip("missing rally") }
        guard let day = fields.int("nDay"), day >= 1 else { return .skip("missing or invalid nDay") }
        var title = cut(TextRules.trimmed(fields.string("title") ?? "").replacingNULs(), to: titleLength)
        if title.isEmpty { title = "Untitled" }
        let description = cut(TextRules.trimmed(fields.string("description") ?? "").replacingNULs(), to: descriptionLength)
        let times = Timestamps(fields, now: now)
        return .row(ImportedVideo(
            id: id, youtubeID: youtube.value, title: title, description: description, rallyID: rallyID, day: day,
            ownerID: ownerID, createdAt: times.createdAt, updatedAt: times.updatedAt
        ), notes: times.notes)
    }
}
