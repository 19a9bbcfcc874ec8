import Auth
import Community
import JSON
import Storage
import VideoRegistry

/// A Video object of API.md, with its owner and, for a signed-in caller, `likedByMe`.
///
/// Written once, as its row is read (`init(reading:callerID:)`): a list page copies the bytes
/// and no `Video` or `String` is made of the long texts. Making each row's strings, then
/// destroying them after encoding, was a third of a feed page's CPU.
struct VideoJSON: JSONEncodable {
    /// What lists page by and filters look at; everything else is only in the JSON.
    struct Fields: Sendable {
        let id: String
        let ownerID: String
        let hidden: Bool
        let likesCount: Int
        let flagsCount: Int
        let createdAt: Int64
        /// Where the owner's object goes, when it was left out to be read apart (written with
        /// `caller`, and the owner is someone else).
        var ownerLeftOutAt: Int? = nil
    }

    let video: Fields
    private let json: [UInt8]

    /// Reads what `Presenter.videoSelection` selects: `Video.columns`, the owner's columns
    /// (`Presenter.writeUser`), then `likedByMe` for a signed-in caller.
    init(reading reader: inout RowReader, callerID: String?) throws {
        var writer = JSONWriter(capacity: 1_024)
        video = try Self.write(reading: &reader, callerID: callerID, to: &writer)
        json = writer.bytes
    }

    /// Writes the video object of the row into `writer` (an activity's own, so its video is not
    /// copied twice) and answers the fields lists and filters look at.
    ///
    /// With `caller`, the row has no owner's columns (`Presenter.activitySelection(for:caller:)`):
    /// an owner who is the caller is `caller`'s bytes, anyone else is left out
    /// (`Fields.ownerLeftOutAt`) for `Presenter.withOwners` to read.
    static func write(reading reader: inout RowReader, callerID: String?, caller: Presenter.CallerUser? = nil, to writer: inout JSONWriter) throws -> Fields {
        writer.beginObject()
        let (id, youtubeID) = try writeLeadingFields(reading: &reader, to: &writer)
        let ownerID: String = try reader.next()
        let hidden: Bool = try reader.next()
        let likesCount: Int = try reader.next()
        let commentsCount: Int = try reader.next()
        let flagsCount: Int = try reader.next()
        let createdAt: Int64 = try reader.next()
        writer.key("owner")
        var ownerLeftOutAt: Int?
        if let caller {
            if ownerID == caller.id {
                writer.encoded(caller.json)
            } else {
                ownerLeftOutAt = writer.count
                writer.leaveValueOut()
            }
        } else {
            try Presenter.writeUser(&reader, callerID: callerID, to: &writer)
        }
        writer.field("likesCount", likesCount)
        writer.field("commentsCount", commentsCount)
        writer.key("thumbnailUrl")
        writer.value(YouTubeID.thumbnailURLParts.prefix, youtubeID.value, YouTubeID.thumbnailURLParts.suffix)
        writer.key("watchUrl")
        writer.value(YouTubeID.watchURLParts.prefix, youtubeID.value, YouTubeID.watchURLParts.suffix)
        // Ids are letters and digits (`ObjectID`), so the id needs no escaping in a path.
        writer.field("shareUrl", ShareLinks.prefix.map { $0 + id })
        writer.field("createdAt", timestampMillis: createdAt)
        writer.field("hidden", hidden)
        if callerID != nil { writer.field("likedByMe", try reader.next(as: Bool.self)) }
        writer.endObject()
        return Fields(id: id, ownerID: ownerID, hidden: hidden, likesCount: likesCount, flagsCount: flagsCount, createdAt: createdAt,
                      ownerLeftOutAt: ownerLeftOutAt)
    }

    /// The fields every Video object starts with, from the first columns of `Video.columns`
    /// (id, youtube_id, title, description, rally_id, day): the API's videos and the
    /// account export's write them alike.
    static func writeLeadingFields(reading reader: inout RowReader, to writer: inout JSONWriter) throws -> (id: String, youtubeID: YouTubeID) {
        let id: String = try reader.next()
        writer.field("id", id)
        guard let youtubeID = YouTubeID(parsing: try reader.next()) else {
            throw StorageError.decoding(column: "youtube_id", expected: "a YouTube id")
        }
        writer.field("youtubeId", youtubeID.value)
        try writer.field("title", textFrom: &reader)
        try writer.field("description", textFrom: &reader)
        try writer.field("rallyId", textFrom: &reader)
        writer.field("day", try reader.next(as: Int64.self))
        return (id, youtubeID)
    }

    func encode(to writer: inout JSONWriter) {
        writer.encoded(json)
    }
}

/// An Activity object of API.md, written once as its row is read, like `VideoJSON`.
struct ActivityJSON: JSONEncodable {
    /// What lists page by and look up; everything else is only in the JSON.
    struct Fields: Sendable {
        let id: String
        let createdAt: Int64
    }

    let activity: Fields
    private let json: [UInt8]
    /// The video's owner, when left out of the row to be read apart (`VideoJSON.write`).
    private(set) var owner: LeftOutUser?

    /// A user object left out of an item's bytes, and written in with them (`withOwner`).
    struct LeftOutUser: Sendable {
        let id: String
        let offset: Int
        var json: [UInt8] = []
    }

    /// The columns `init(reading:callerID:viewer:)` reads first, qualified by `a`. The users
    /// and the video are read from their joined rows, so their ids are not selected again.
    static let columns: SQL = "a.id, a.type, a.content, a.created_at"

    /// Reads what `Presenter.activitySelection` selects: `columns`, its two users (with
    /// `caller`, only the actor: the row is aimed at the caller), then its video (all NULL for
    /// a follow). A video the viewer may not see is written as null.
    init(reading reader: inout RowReader, callerID: String?, caller: Presenter.CallerUser?, viewer: Viewer) throws {
        var writer = JSONWriter(capacity: 2_048)
        writer.beginObject()
        let id: String = try reader.next()
        writer.field("id", id)
        guard let kind = ActivityKind(rawValue: try reader.next()) else {
            throw StorageError.decoding(column: "type", expected: "an activity type 1...4")
        }
        writer.field("type", kind.name)
        let content: String? = try reader.next()
        let createdAt: Int64 = try reader.next()
        writer.key("fromUser")
        try Presenter.writeUser(&reader, callerID: callerID, caller: caller, to: &writer)
        writer.key("toUser")
        if let caller {
            // Every row is aimed at the caller (`Presenter.activitySelection(for:caller:)`).
            writer.encoded(caller.json)
        } else {
            try Presenter.writeUser(&reader, callerID: callerID, to: &writer)
        }
        writer.key("video")
        // No video (a follow): the video's columns are all NULL and are not read. A video the
        // viewer may not see is known once read: it is written, then cut off again.
        if reader.nextIsNull {
            writer.null()
        } else {
            let videoStart = writer.count
            let video = try VideoJSON.write(reading: &reader, callerID: callerID, caller: caller, to: &writer)
            if !viewer.canSee(hidden: video.hidden, ownerID: video.ownerID) {
                writer.truncate(to: videoStart)
                writer.null()
            } else if let offset = video.ownerLeftOutAt {
                owner = LeftOutUser(id: video.ownerID, offset: offset)
            }
        }
        writer.field("content", content)
        writer.field("createdAt", timestampMillis: createdAt)
        writer.endObject()
        activity = Fields(id: id, createdAt: createdAt)
        json = writer.bytes
    }

    /// The video's owner written in (`Presenter.withOwners`).
    func withOwner(_ json: [UInt8]) -> ActivityJSON {
        var copy = self
        copy.owner?.json = json
        return copy
    }

    func encode(to writer: inout JSONWriter) {
        if let owner {
            writer.encoded(json, inserting: owner.json, at: owner.offset)
        } else {
            writer.encoded(json)
        }
    }
}

/// A Rally object of API.md; statuses are computed against `today` (UTC calendar day).
struct RallyJSON: JSONEncodable {
    let rally: Rally
    let today: Int

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", rally.id)
        writer.field("name", rally.name)
        writer.field("country", rally.country)
        writer.field("startDate", date: rally.startDay)
        writer.field("endDate", date: rally.endDay)
        writer.field("status", rally.status(today: today).rawValue)
        writer.key("days")
        writer.beginArray()
        for number in 1...rally.dayCount {
            let date = rally.date(ofDay: number)
            writer.beginObject()
            writer.field("number", number)
            writer.field("date", date: date)
            writer.field("status", RallyStatus.of(start: date, end: date, today: today).rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.field("videosCount", rally.videosCount)
        writer.endObject()
    }
}

/// `{"items": [...]}`: a complete list, no cursor (the season's rallies).
struct ItemsJSON<Item: JSONEncodable>: JSONEncodable {
    let items: [Item]

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("items", array: items)
        writer.endObject()
    }
}
