import Community
import Auth
import HTTP
import Storage
import VideoRegistry

/// A user's follow, and the lists on a profile: videos, followers, following (newest first).
struct UserRoutes {
    let lists: PagedLists
    let social: Social

    private var database: any Database { lists.database }

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.put("/v1/users/{id}/follow", policy: .session(limit: .writes, pool: .blocking), follow)
        router.delete("/v1/users/{id}/follow", policy: .session(limit: .writes, pool: .blocking), unfollow)
        router.get("/v1/users/{id}/videos", policy: .publicRead, videos)
        router.get("/v1/users/{id}/followers", policy: .publicRead, followers)
        router.get("/v1/users/{id}/following", policy: .publicRead, following)
    }

    @Sendable func follow(_ request: Request, _ context: Context) throws -> Response {
        try present(try social.follow(try context.parameters.require("id"), by: try context.caller()), context)
    }

    @Sendable func unfollow(_ request: Request, _ context: Context) throws -> Response {
        try present(try social.unfollow(try context.parameters.require("id"), by: try context.caller()), context)
    }

    @Sendable func videos(_ request: Request, _ context: Context) throws -> Response {
        let user = try account(context)
        let identity = context.identity
        return try lists.respond(request, scope: "user-videos|\(user.id)",
            fetch: { after, limit, connection in
                try VideoStore().byOwner(user.id, viewer: Viewer(identity), after: try Positions.time(after), limit: limit,
                                         selecting: Presenter.videoSelection(for: identity), on: connection)
            },
            position: { Positions.time($0.video.createdAt, $0.video.id) },
            present: { videos, _ in videos })
    }

    @Sendable func followers(_ request: Request, _ context: Context) throws -> Response {
        try follows(.followers, request, context)
    }

    @Sendable func following(_ request: Request, _ context: Context) throws -> Response {
        try follows(.following, request, context)
    }

    /// Followers or followed users, by when the follow happened, newest first.
    private func follows(_ direction: FollowDirection, _ request: Request, _ context: Context) throws -> Response {
        let user = try account(context)
        let identity = context.identity
        let otherID: (Activity) -> String = { direction == .followers ? $0.fromUserID : $0.toUserID }
        return try lists.respond(request, scope: "user-\(direction == .followers ? "followers" : "following")|\(user.id)",
            fetch: { after, limit, connection in
                try ActivityStore().follows(direction, userID: user.id, after: try Positions.time(after), limit: limit, on: connection)
            },
            position: { Positions.time($0.createdAt, $0.id) },
            present: { follows, connection in try Presenter(identity, connection).users(ids: follows.map(otherID)) })
    }

    /// The user the path names, if the caller may see their lists: a banned account's are
    /// 404 for everyone but moderators and admins, as its profile is (API.md "Visibility").
    private func account(_ context: Context) throws -> Account {
        let key = try context.parameters.require("id")
        guard let account = try database.read({ connection in try AccountStore().find(idOrUsername: key, on: connection) }),
              Viewer(context.identity).canSee(account) else {
            throw APIError.notFound("No such user.")
        }
        return account
    }

    private func present(_ account: Account, _ context: Context) throws -> Response {
        .json(200, try database.read { connection in try Presenter(context.identity, connection).user(account) })
    }
}
