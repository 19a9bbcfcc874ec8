import Auth
import Community
import HTTP
import Storage
import VideoRegistry

/// API.md "Videos" and the video side of "Activities": registration, reading, owner edits,
/// deletion; likes, comments and flags.
struct VideoRoutes {
    let reads: VideoReads
    let codec: CursorCodec
    let videos: Videos
    let social: Social
    let moderation: Moderation

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.post("/v1/videos", policy: .session(limit: .writes, pool: .blocking), create)
        router.get("/v1/videos/{id}", policy: .publicRead, video)
        router.patch("/v1/videos/{id}", policy: .session(limit: .writes, pool: .blocking), update)
        router.delete("/v1/videos/{id}", policy: .session(limit: .writes, pool: .blocking), delete)
        router.put("/v1/videos/{id}/like", policy: .session(limit: .writes, pool: .blocking), like)
        router.delete("/v1/videos/{id}/like", policy: .session(limit: .writes, pool: .blocking), unlike)
        router.get("/v1/videos/{id}/likes", policy: .publicRead, likes)
        router.post("/v1/videos/{id}/comments", policy: .session(limit: .writes, pool: .blocking), comment)
        router.get("/v1/videos/{id}/comments", policy: .publicRead, comments)
        router.delete("/v1/comments/{id}", policy: .session(limit: .writes, pool: .blocking), deleteComment)
        router.post("/v1/videos/{id}/flags", policy: .session(limit: .writes, pool: .blocking), flag)
    }

    @Sendable func create(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        let input = Videos.Input(
            youtubeID: try body.requireString("youtubeId"),
            title: try body.requireString("title"),
            rallyID: try body.requireString("rallyId"),
            day: try body.requireInt("day"),
            description: try body.string("description")
        )
        let video = try videos.create(input, by: try context.caller())
        return try present(201, video, context)
    }

    @Sendable func video(_ request: Request, _ context: Context) throws -> Response {
        .json(200, try reads.visible(id: try context.parameters.require("id"), for: context.identity))
    }

    @Sendable func update(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        let video = try videos.update(
            id: try context.parameters.require("id"),
            title: try body.nonNull("title", body.string),
            description: try body.nonNull("description", body.string),
            by: try context.caller()
        )
        return try present(200, video, context)
    }

    @Sendable func delete(_ request: Request, _ context: Context) throws -> Response {
        // A moderator's deletion of someone else's video is logged, with the body's optional reason.
        try moderation.deleteVideo(id: try context.parameters.require("id"), reason: try ModerationRoutes.reason(request), by: try context.caller())
        return .noContent()
    }

    @Sendable func like(_ request: Request, _ context: Context) throws -> Response {
        .json(200, try social.like(videoID: try context.parameters.require("id"), by: try context.caller(), answering: Presenter.videoSelection(for: context.identity)))
    }

    @Sendable func unlike(_ request: Request, _ context: Context) throws -> Response {
        .json(200, try social.unlike(videoID: try context.parameters.require("id"), by: try context.caller(), answering: Presenter.videoSelection(for: context.identity)))
    }

    /// Who liked a video, most recent like first.
    @Sendable func likes(_ request: Request, _ context: Context) throws -> Response {
        let video = try videos.video(id: try context.parameters.require("id"), viewer: Viewer(context.identity))
        let page = try PageRequest.parse(request, codec: codec, scope: "video-likes|\(video.id)", refreshable: true)
        return .page(try reads.likes(of: video, for: context.identity, page: page), page)
    }

    @Sendable func comment(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        return .json(201, try social.comment(
            videoID: try context.parameters.require("id"), content: try body.requireString("content"), by: try context.caller(),
            answering: Presenter.activitySelection(for: context.identity)))
    }

    /// A video's comments, oldest first.
    @Sendable func comments(_ request: Request, _ context: Context) throws -> Response {
        let video = try videos.video(id: try context.parameters.require("id"), viewer: Viewer(context.identity))
        let page = try PageRequest.parse(request, codec: codec, scope: "video-comments|\(video.id)", refreshable: true)
        return .page(try reads.comments(on: video, for: context.identity, page: page), page)
    }

    @Sendable func deleteComment(_ request: Request, _ context: Context) throws -> Response {
        try moderation.deleteComment(id: try context.parameters.require("id"), reason: try ModerationRoutes.reason(request), by: try context.caller())
        return .noContent()
    }

    @Sendable func flag(_ request: Request, _ context: Context) throws -> Response {
        let body = request.body.isEmpty ? JSONBody([:]) : try JSONBody.parse(request)
        return .json(201, try social.flag(
            videoID: try context.parameters.require("id"), reason: try body.string("reason"), by: try context.caller(),
            answering: Presenter.activitySelection(for: context.identity)))
    }

    private func present(_ status: Int, _ video: Video, _ context: Context) throws -> Response {
        .json(status, try reads.video(video, for: context.identity))
    }
}
