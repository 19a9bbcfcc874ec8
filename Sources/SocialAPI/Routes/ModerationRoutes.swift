import Auth
import HTTP
import Storage
import VideoRegistry

/// API.md "Moderation": hiding and restoring videos (moderators and admins).
struct ModerationRoutes {
    let database: any Database
    let videos: Videos

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.post("/v1/moderation/videos/{id}/hide", options: .blocking, hide)
        router.post("/v1/moderation/videos/{id}/restore", options: .blocking, restore)
    }

    @Sendable func hide(_ request: Request, _ context: Context) throws -> Response {
        try setHidden(true, context)
    }

    @Sendable func restore(_ request: Request, _ context: Context) throws -> Response {
        try setHidden(false, context)
    }

    private func setHidden(_ hidden: Bool, _ context: Context) throws -> Response {
        let video = try videos.setHidden(hidden, id: try context.parameters.require("id"), by: try context.caller())
        return .json(200, try database.read { connection in try Presenter(context.identity, connection).video(video) })
    }
}
