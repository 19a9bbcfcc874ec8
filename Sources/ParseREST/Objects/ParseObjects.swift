import Auth
import Community
import JSON
import VideoRegistry

/// Pacenote's rows written as the original app's Parse objects (PARSE-REST.md §1.5): the
/// field names of `Rallye`, `Video` and `_User` as the import read them, `objectId`,
/// `createdAt` and `updatedAt` as plain ISO strings, dates as `{"__type":"Date"}`, pointers as
/// `{"__type":"Pointer"}` or, included, as `{"__type":"Object"}` with the object's fields.
enum ParseObjects {
    /// Which fields to write: `keys` restricts them (objectId, createdAt and updatedAt are
    /// always there, parse-server's `AlwaysSelectedKeys`).
    struct Fields {
        let keys: Set<String>?
        static let all = Fields(keys: nil)

        func has(_ name: String) -> Bool { keys?.contains(name) ?? true }
    }

    /// What the caller may see of an account beyond its public fields: email and
    /// emailVerified are the account's own (as `/v1/users/me`).
    static func writeUser(_ row: UserRow, callerID: String?, fields: Fields = .all, nested: Bool = false,
                          sessionToken: String? = nil, to writer: inout JSONWriter) {
        let account = row.account
        writer.beginObject()
        if nested {
            writer.field("__type", "Object")
            writer.field("className", "_User")
        }
        writer.field("objectId", account.id)
        if fields.has("username") { writer.field("username", account.username) }
        if fields.has("displayName") { writer.field("displayName", account.displayName) }
        if account.id == callerID {
            if fields.has("email") { writer.field("email", account.email) }
            if fields.has("emailVerified") { writer.field("emailVerified", account.emailVerified) }
        }
        // The original app kept two sizes of the picture; they are the two renditions the
        // /v1 User's avatarUrl and avatarThumbnailUrl point at. No picture: no field, as
        // Parse leaves an unset field out.
        if let key = account.picture {
            if fields.has("profilePictureMedium") { writeFile("profilePictureMedium", PictureName.large(key), to: &writer) }
            if fields.has("profilePictureSmall") { writeFile("profilePictureSmall", PictureName.small(key), to: &writer) }
        }
        writer.field("createdAt", timestampMillis: account.createdAt)
        writer.field("updatedAt", timestampMillis: row.updatedAt)
        if let sessionToken { writer.field("sessionToken", sessionToken) }
        writer.endObject()
    }

    static func writeRally(_ row: RallyRow, fields: Fields = .all, nested: Bool = false, to writer: inout JSONWriter) {
        let rally = row.rally
        writer.beginObject()
        if nested {
            writer.field("__type", "Object")
            writer.field("className", "Rallye")
        }
        writer.field("objectId", rally.id)
        if fields.has("name") { writer.field("name", rally.name) }
        if fields.has("country") { writer.field("country", rally.country) }
        if fields.has("iniDate") { writeDay("iniDate", rally.startDay, to: &writer) }
        if fields.has("endDate") { writeDay("endDate", rally.endDay, to: &writer) }
        if fields.has("nDays") { writer.field("nDays", rally.dayCount) }
        writer.field("createdAt", timestampMillis: rally.createdAt)
        writer.field("updatedAt", timestampMillis: row.updatedAt)
        writer.endObject()
    }

    /// A video; `rally` and `owner` are the included objects when asked for and found, else
    /// the fields are Pointers.
    static func writeVideo(_ row: VideoRow, rally: RallyRow?, owner: UserRow?, callerID: String?, fields: Fields = .all, nested: Bool = false,
                           to writer: inout JSONWriter) {
        let video = row.video
        writer.beginObject()
        if nested {
            writer.field("__type", "Object")
            writer.field("className", "Video")
        }
        writer.field("objectId", video.id)
        if fields.has("youtubeID") { writer.field("youtubeID", video.youtubeID.value) }
        if fields.has("title") { writer.field("title", video.title) }
        if fields.has("description") { writer.field("description", video.description) }
        if fields.has("nDay") { writer.field("nDay", video.day) }
        if fields.has("rallyId") {
            writer.key("rallyId")
            if let rally { writeRally(rally, nested: true, to: &writer) } else { writePointer("Rallye", video.rallyID, to: &writer) }
        }
        if fields.has("owner") {
            writer.key("owner")
            if let owner { writeUser(owner, callerID: callerID, nested: true, to: &writer) } else { writePointer("_User", video.ownerID, to: &writer) }
        }
        if fields.has("nLikes") { writer.field("nLikes", video.likesCount) }
        if fields.has("nComments") { writer.field("nComments", video.commentsCount) }
        writer.field("createdAt", timestampMillis: video.createdAt)
        writer.field("updatedAt", timestampMillis: row.updatedAt)
        writer.endObject()
    }

    /// An activity; `from`, `to` and `video` are the included objects when asked for and found,
    /// else the fields are Pointers. A follow has no video; content is a comment's text or a
    /// flag's reason.
    static func writeActivity(_ activity: Activity, from: UserRow?, to: UserRow?, video: VideoRow?, callerID: String?, fields: Fields = .all,
                              to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("objectId", activity.id)
        if fields.has("type") { writer.field("type", activity.kind.rawValue) }
        if fields.has("fromUser") {
            writer.key("fromUser")
            if let from { writeUser(from, callerID: callerID, nested: true, to: &writer) } else { writePointer("_User", activity.fromUserID, to: &writer) }
        }
        if fields.has("toUser") {
            writer.key("toUser")
            if let to { writeUser(to, callerID: callerID, nested: true, to: &writer) } else { writePointer("_User", activity.toUserID, to: &writer) }
        }
        if fields.has("video"), let videoID = activity.videoID {
            writer.key("video")
            if let video { writeVideo(video, rally: nil, owner: nil, callerID: callerID, nested: true, to: &writer) } else { writePointer("Video", videoID, to: &writer) }
        }
        if fields.has("content"), let content = activity.content { writer.field("content", content) }
        writer.field("createdAt", timestampMillis: activity.createdAt)
        writer.field("updatedAt", timestampMillis: activity.createdAt)
        writer.endObject()
    }

    static func writePointer(_ className: String, _ id: String, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("__type", "Pointer")
        writer.field("className", className)
        writer.field("objectId", id)
        writer.endObject()
    }

    /// A calendar day as Parse's Date at midnight UTC, as the export carried `iniDate`.
    private static func writeDay(_ key: StaticString, _ day: Int, to writer: inout JSONWriter) {
        writer.key(key)
        writer.beginObject()
        writer.field("__type", "Date")
        writer.field("iso", timestampMillis: Int64(day) * ParseDates.dayMillis)
        writer.endObject()
    }

    private static func writeFile(_ key: StaticString, _ name: String, to writer: inout JSONWriter) {
        writer.key(key)
        writer.beginObject()
        writer.field("__type", "File")
        writer.field("name", name)
        writer.field("url", PictureLinks.url(name))
        writer.endObject()
    }
}
