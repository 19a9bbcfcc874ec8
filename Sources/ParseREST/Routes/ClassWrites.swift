import Auth
import Community
import HTTP
import JSON
import Storage
import VideoRegistry

/// `POST /classes/<Class>`, `PUT` and `DELETE /classes/<Class>/<objectId>` for `Video` and
/// `Activity`, through the domain services `/v1`'s routes call (VideoRoutes, UserRoutes):
/// `Videos` for registration and edits, `Social` for likes, comments, flags and follows,
/// `Moderation` for deletions (a moderator's is logged). The rules, hooks and counters are
/// theirs; this reads Parse's bodies and writes Parse's answers (PARSE-REST.md §1.3):
/// a create 201 `{objectId, createdAt}` with `Location`, an update 200 `{updatedAt}`, a delete
/// 200 `{}`. Other classes are 119.
struct ClassWrites: Sendable {
    let sessions: ParseSessions
    let reads: ClassReads
    let videos: Videos
    let social: Social
    let moderation: Moderation
    /// `_User`'s writes: the caller's profile.
    let profile: ProfileWrites
    /// `/v1`'s per-user write limit, counted once per write (a batch's too).
    let countWrite: @Sendable (String) throws -> Void

    /// The caller, with the write counted against their limit.
    private func writer(_ request: ParseRequest) throws -> Accounts.Identity {
        let identity = try sessions.requireCaller(request)
        try countWrite(identity.userID)
        return identity
    }

    /// What a comment's or a flag's write answers: the new activity's id and time.
    private static let stamp = Selection(columns: "a.id, a.created_at") { reader in
        (id: try reader.next() as String, createdAt: try reader.next() as Int64)
    }
    /// What an unlike answers, which the facade does not use.
    private static let videoID = Selection(columns: "v.id") { reader in try reader.next() as String }

    @Sendable func create(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let schema = try ClassRoutes.schema(parameters)
        let identity = try writer(request)
        let (id, createdAt): (String, Int64)
        switch schema.className {
        case "Video": (id, createdAt) = try createVideo(request.body, by: identity)
        case "Activity": (id, createdAt) = try createActivity(request.body, by: identity)
        default: throw Self.readOnly(schema)
        }
        var writer = JSONWriter(capacity: 96)
        writer.beginObject()
        writer.field("objectId", id)
        writer.field("createdAt", timestampMillis: createdAt)
        writer.endObject()
        var response = Response.json(201, writer: writer)
        let mount = request.http.path.hasPrefix("/1/") ? "/1" : "/parse"
        response.headers.append(("Location", "\(mount)/classes/\(schema.className)/\(id)"))
        return response
    }

    @Sendable func update(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let schema = try ClassRoutes.schema(parameters)
        if schema.className == "_User" { return try profile.update(request, parameters) }
        let id = try parameters.require("objectId")
        let identity = try writer(request)
        guard schema.className == "Video" else {
            if schema.className == "Activity" { throw ParseError(.operationForbidden, "An Activity cannot be changed; delete it instead.") }
            throw Self.readOnly(schema)
        }
        // The fields a video's owner may change on /v1 (PATCH /v1/videos/{id}); the others are
        // the video's identity: sent unchanged they are accepted (qs-parse-rest, as ParsePy,
        // PUTs every field it holds), changed they are 119.
        let identityFields = ["youtubeID", "nDay", "rallyId", "owner"]
        if identityFields.contains(where: { request.body[$0] != nil }) {
            let stored = try videos.video(id: id, viewer: Viewer(identity))
            let values: [String: JSONValue] = [
                "youtubeID": .string(stored.youtubeID.value), "nDay": .int(Int64(stored.day)),
                "rallyId": .object(["__type": .string("Pointer"), "className": .string("Rallye"), "objectId": .string(stored.rallyID)]),
                "owner": .object(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string(stored.ownerID)]),
            ]
            for name in identityFields {
                guard let sent = request.body[name] else { continue }
                guard Self.same(sent, values[name]) else { throw ParseError(.operationForbidden, "Video.\(name) cannot be changed.") }
            }
        }
        let body = try WriteBody(request.body, className: "Video", writable: ["title", "description"],
                                 ignored: Set(["ACL", "nLikes", "nComments"] + identityFields))
        let video = try videos.update(id: id, title: try body.string("title"), description: try body.string("description"), by: identity)
        let updatedAt = try reads.videoUpdatedAt(id: video.id) ?? video.createdAt
        var writer = JSONWriter(capacity: 96)
        writer.beginObject()
        writer.field("updatedAt", timestampMillis: updatedAt)
        // parse-server answers the fields whose stored value differs from what was sent (an
        // Increment's result): the counters are the server's.
        if request.body["nLikes"] != nil { writer.field("nLikes", video.likesCount) }
        if request.body["nComments"] != nil { writer.field("nComments", video.commentsCount) }
        writer.endObject()
        return .json(200, writer: writer)
    }

    @Sendable func delete(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let schema = try ClassRoutes.schema(parameters)
        let id = try parameters.require("objectId")
        let identity = try writer(request)
        switch schema.className {
        case "Video":
            try moderation.deleteVideo(id: id, reason: nil, by: identity)
        case "Activity":
            try deleteActivity(id: id, by: identity)
        default:
            throw Self.readOnly(schema)
        }
        return SessionRoutes.empty
    }

    // MARK: Video

    /// `POST /v1/videos`: `owner`, when sent, must be the caller.
    private func createVideo(_ fields: [String: JSONValue], by identity: Accounts.Identity) throws -> (String, Int64) {
        let body = try WriteBody(fields, className: "Video", writable: ["youtubeID", "title", "description", "nDay", "rallyId", "owner"],
                                 ignored: ["ACL", "nLikes", "nComments"])
        if let owner = try body.pointer("owner", to: "_User"), owner != identity.userID {
            throw ParseError(.operationForbidden, "A video's owner must be the signed-in user.")
        }
        let input = Videos.Input(
            youtubeID: try body.required(try body.string("youtubeID"), "youtubeID"),
            title: try body.required(try body.string("title"), "title"),
            rallyID: try body.required(try body.pointer("rallyId", to: "Rallye"), "rallyId"),
            day: try body.required(try body.integer("nDay"), "nDay"),
            description: try body.string("description"))
        let video = try videos.create(input, by: identity)
        return (video.id, video.createdAt)
    }

    // MARK: Activity

    /// A like or a follow created twice is the same object; a comment is a new one each time;
    /// a second flag of one video is 137, as `/v1`'s 409.
    private func createActivity(_ fields: [String: JSONValue], by identity: Accounts.Identity) throws -> (String, Int64) {
        let body = try WriteBody(fields, className: "Activity", writable: ["type", "fromUser", "toUser", "video", "content"], ignored: ["ACL"])
        if let from = try body.pointer("fromUser", to: "_User"), from != identity.userID {
            throw ParseError(.operationForbidden, "An activity's fromUser must be the signed-in user.")
        }
        guard let kind = ActivityKind(rawValue: try body.required(try body.integer("type"), "type")) else {
            throw ParseError(.validationError, "Activity.type must be 1 (like), 2 (comment), 3 (inappropriate) or 4 (follow).")
        }
        let toUser = try body.pointer("toUser", to: "_User")
        let content = try body.string("content")
        if kind == .follow {
            if body.fields["video"] != nil { throw ParseError(.validationError, "A follow has no video.") }
            if content != nil { throw ParseError(.validationError, "A follow has no content.") }
            let follow = try social.followActivity(try body.required(toUser, "toUser"), by: identity)
            return (follow.id, follow.createdAt)
        }
        let videoID = try body.required(try body.pointer("video", to: "Video"), "video")
        if let toUser {
            // The activity is to the video's owner; a toUser naming someone else is refused.
            let video = try videos.video(id: videoID, viewer: Viewer(identity))
            guard video.ownerID == toUser else { throw ParseError(.validationError, "Activity.toUser must be the video's owner.") }
        }
        switch kind {
        case .like:
            if content != nil { throw ParseError(.validationError, "A like has no content.") }
            let like = try social.likeActivity(videoID: videoID, by: identity)
            return (like.id, like.createdAt)
        case .comment:
            let comment = try social.comment(videoID: videoID, content: try body.required(content, "content"), by: identity, answering: Self.stamp)
            return (comment.id, comment.createdAt)
        case .inappropriate:
            let flag = try social.flag(videoID: videoID, reason: content, by: identity, answering: Self.stamp)
            return (flag.id, flag.createdAt)
        case .follow:
            preconditionFailure("handled above")
        }
    }

    /// `/v1`'s undo of each: unlike and unfollow by their author, a comment's deletion by its
    /// author, the video's owner or a moderator (logged). A flag is not taken back on `/v1`: 119
    /// to its author; to anyone else who may not see it, 101 as for an id that does not exist.
    private func deleteActivity(id: String, by identity: Accounts.Identity) throws {
        guard let activity = try reads.activity(id: id, viewer: Viewer(identity)) else { throw ParseError.objectNotFound }
        switch activity.kind {
        case .comment:
            try moderation.deleteComment(id: id, reason: nil, by: identity)
        case .like, .follow:
            guard activity.fromUserID == identity.userID else {
                throw ParseError(.operationForbidden, "Only its author can take back a like or a follow.")
            }
            if activity.kind == .like, let videoID = activity.videoID {
                _ = try social.unlike(videoID: videoID, by: identity, answering: Self.videoID)
            } else {
                _ = try social.unfollow(activity.toUserID, by: identity)
            }
        case .inappropriate:
            throw ParseError(.operationForbidden, "A flag cannot be taken back; moderators dismiss flags.")
        }
    }

    /// A sent value equal to the stored one: a number as a number, a Pointer by its class and id
    /// (a client may add fields to a Pointer, or send the included object back).
    private static func same(_ sent: JSONValue, _ stored: JSONValue?) -> Bool {
        guard let stored else { return false }
        if let number = stored.intValue, case .int = stored { return sent.intValue == number }
        if stored["__type"] != nil {
            return sent["className"] == stored["className"] && sent["objectId"] == stored["objectId"]
                && ["Pointer", "Object"].contains(sent["__type"]?.stringValue ?? "")
        }
        return sent == stored
    }

    private static func readOnly(_ schema: ParseSchema) -> ParseError {
        ParseError(.operationForbidden, "\(schema.className) objects are not written through this server.")
    }
}
