import Auth
import Community
import Delivery
import HTTP
import Storage
import Telemetry
import VideoRegistry

/// API.md "Moderation": the queue, actions on videos and users, the log (moderators and
/// admins), and the outbox's dead letters (admins). Every action takes an optional
/// `{"reason"}` and answers 200 with the object acted on.
struct ModerationRoutes {
    let reads: ModerationReads
    let users: UserReads
    let videos: VideoReads
    let codec: CursorCodec
    let moderation: Moderation
    /// A banned account's pictures stop being served at once.
    let pictureCache: PictureCache

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/moderation/queue", policy: .session, queue)
        router.post("/v1/moderation/videos/{id}/hide", policy: .session(pool: .blocking), hide)
        router.post("/v1/moderation/videos/{id}/restore", policy: .session(pool: .blocking), restore)
        router.post("/v1/moderation/videos/{id}/dismiss", policy: .session(pool: .blocking), dismiss)
        router.post("/v1/moderation/users/{id}/ban", policy: .session(pool: .blocking), ban)
        router.post("/v1/moderation/users/{id}/unban", policy: .session(pool: .blocking), unban)
        router.get("/v1/moderation/log", policy: .session, log)
        router.get("/v1/moderation/outbox/dead", policy: .session, deadLetters)
        router.post("/v1/moderation/outbox/{seq}/retry", policy: .session(pool: .blocking), retry)
    }

    /// Videos with open flags, most flagged first, each with its flags' reasons and who raised them.
    @Sendable func queue(_ request: Request, _ context: Context) throws -> Response {
        let identity = try moderator(context)
        let page = try PageRequest.parse(request, codec: codec, scope: "moderation-queue")
        return .page(try reads.queue(for: identity, page: page), page)
    }

    @Sendable func hide(_ request: Request, _ context: Context) throws -> Response {
        try video(context, try moderation.setHidden(true, videoID: try context.parameters.require("id"), reason: try Self.reason(request), by: try context.caller()))
    }

    @Sendable func restore(_ request: Request, _ context: Context) throws -> Response {
        try video(context, try moderation.setHidden(false, videoID: try context.parameters.require("id"), reason: try Self.reason(request), by: try context.caller()))
    }

    @Sendable func dismiss(_ request: Request, _ context: Context) throws -> Response {
        try video(context, try moderation.dismiss(videoID: try context.parameters.require("id"), reason: try Self.reason(request), by: try context.caller()))
    }

    @Sendable func ban(_ request: Request, _ context: Context) throws -> Response {
        let account = try moderation.setBanned(true, userKey: try context.parameters.require("id"), reason: try Self.reason(request), by: try context.caller())
        pictureCache.evict(userID: account.id)
        return try user(context, account)
    }

    @Sendable func unban(_ request: Request, _ context: Context) throws -> Response {
        try user(context, try moderation.setBanned(false, userKey: try context.parameters.require("id"), reason: try Self.reason(request), by: try context.caller()))
    }

    /// What moderators did, newest first; `actor` is null for automatic hides.
    @Sendable func log(_ request: Request, _ context: Context) throws -> Response {
        let identity = try moderator(context)
        let page = try PageRequest.parse(request, codec: codec, scope: "moderation-log")
        return .page(try reads.log(for: identity, page: page), page)
    }

    /// Push and fan-out jobs that failed their last attempt, newest first (admins).
    @Sendable func deadLetters(_ request: Request, _ context: Context) throws -> Response {
        _ = try context.admin()
        let page = try PageRequest.parse(request, codec: codec, scope: "outbox-dead")
        return .page(try reads.deadLetters(page: page), page)
    }

    /// Makes a dead job due again with a fresh count of attempts (admins); answers the job.
    @Sendable func retry(_ request: Request, _ context: Context) throws -> Response {
        _ = try context.admin()
        guard let seq = Int64(try context.parameters.require("seq")), let entry = try moderation.retryDeadJob(seq: seq) else {
            throw APIError.notFound("No such dead job.")
        }
        return .json(200, OutboxEntryJSON(entry: entry))
    }

    private func moderator(_ context: Context) throws -> Accounts.Identity {
        let identity = try context.caller()
        try Moderation.requireModerator(identity)
        return identity
    }

    /// The optional `reason` of an action's body (an empty body is no reason).
    static func reason(_ request: Request) throws(APIError) -> String? {
        guard !request.body.isEmpty else { return nil }
        return try JSONBody.parse(request).string("reason")
    }

    private func video(_ context: Context, _ video: Video) throws -> Response {
        .json(200, try videos.video(video, for: context.identity))
    }

    private func user(_ context: Context, _ account: Account) throws -> Response {
        .json(200, try users.user(account, for: context.identity))
    }
}
