import Auth
import JSON
import VideoRegistry

/// A Video object of API.md, with its owner and, for a signed-in caller, `likedByMe`.
struct VideoJSON: JSONEncodable {
    let video: Video
    let owner: UserJSON
    let likedByMe: Bool?

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", video.id)
        writer.field("youtubeId", video.youtubeID.value)
        writer.field("title", video.title)
        writer.field("description", video.description)
        writer.field("rallyId", video.rallyID)
        writer.field("day", video.day)
        writer.field("owner", owner)
        writer.field("likesCount", video.likesCount)
        writer.field("commentsCount", video.commentsCount)
        writer.field("thumbnailUrl", video.youtubeID.thumbnailURL)
        writer.field("watchUrl", video.youtubeID.watchURL)
        writer.field("createdAt", timestampMillis: video.createdAt)
        writer.field("hidden", video.hidden)
        if let likedByMe { writer.field("likedByMe", likedByMe) }
        writer.endObject()
    }
}

/// An Activity object of API.md.
struct ActivityJSON: JSONEncodable {
    let activity: Activity
    let fromUser: UserJSON
    let toUser: UserJSON
    /// Nil for follows, and for a video the caller may not see.
    let video: VideoJSON?

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", activity.id)
        writer.field("type", activity.kind.name)
        writer.field("fromUser", fromUser)
        writer.field("toUser", toUser)
        writer.key("video")
        if let video { writer.value(video) } else { writer.null() }
        writer.field("content", activity.content)
        writer.field("createdAt", timestampMillis: activity.createdAt)
        writer.endObject()
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
