import Community
import Auth
import HTTP
import Storage
import VideoRegistry

/// API.md "Videos" and the video side of "Activities": registration, reading, owner edits,
/// deletion; likes, comments and flags.
struct VideoRoutes {
    let lists: PagedLists
    let videos: Videos
    let social: Social
    let moderation: Moderation

    private var database: any Database { lists.database }

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
        let id = try context.parameters.require("id")
        let identity = context.identity
        return .json(200, try database.read { connection in
            try videos.visible(id: id, viewer: Viewer(identity), selecting: Presenter.videoSelection(for: identity), on: connection)
        })
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
        let identity = context.identity
        return try lists.respond(request, scope: "video-likes|\(video.id)",
            fetch: { after, limit, connection in
                try ActivityStore().likes(videoID: video.id, viewer: Viewer(identity), after: try Positions.time(after), limit: limit, on: connection)
            },
            position: { Positions.time($0.createdAt, $0.id) },
            present: { likes, connection in try Presenter(identity, connection).users(ids: likes.map(\.fromUserID)) })
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
        let identity = context.identity
        return try lists.respond(request, scope: "video-comments|\(video.id)",
            fetch: { after, limit, connection in
                try ActivityStore().comments(videoID: video.id, viewer: Viewer(identity), after: try Positions.time(after), limit: limit,
                                             selecting: Presenter.activitySelection(for: identity), on: connection)
            },
            position: { Positions.time($0.activity.createdAt, $0.activity.id) },
            present: { comments, _ in comments })
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
        .json(status, try database.read { connection in try Presenter(context.identity, connection).video(id: video.id) })
    }
}
