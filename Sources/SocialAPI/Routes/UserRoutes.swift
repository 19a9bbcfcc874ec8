import Auth
import HTTP
import Storage
import VideoRegistry

/// A user's follow, and the lists on a profile: videos, followers, following (newest first).
struct UserRoutes {
    let database: any Database
    let social: Social
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.put("/v1/users/{id}/follow", follow)
        router.delete("/v1/users/{id}/follow", unfollow)
        router.get("/v1/users/{id}/videos", videos)
        router.get("/v1/users/{id}/followers", followers)
        router.get("/v1/users/{id}/following", following)
    }

    @Sendable func follow(_ request: Request, _ context: Context) throws -> Response {
        try present(try social.follow(try context.parameters.require("id"), by: try context.caller()), context)
    }

    @Sendable func unfollow(_ request: Request, _ context: Context) throws -> Response {
        try present(try social.unfollow(try context.parameters.require("id"), by: try context.caller()), context)
    }

    @Sendable func videos(_ request: Request, _ context: Context) throws -> Response {
        let user = try account(context)
        let scope = "user-videos|\(user.id)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        let identity = context.identity
        return .json(200, try database.read { connection in
            let videos = try VideoStore().byOwner(user.id, viewer: Viewer(identity), after: try Positions.time(page.after), limit: page.limit + 1, on: connection)
            let presented = try Presenter(identity, connection).videos(videos)
            return Page.make(rows: Array(zip(videos, presented)), limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.time($0.0.createdAt, $0.0.id) }, item: { $0.1 })
        })
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
        let scope = "user-\(direction == .followers ? "followers" : "following")|\(user.id)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        let identity = context.identity
        return .json(200, try database.read { connection in
            let follows = try ActivityStore().follows(direction, userID: user.id, after: try Positions.time(page.after), limit: page.limit + 1, on: connection)
            let otherID: (Activity) -> String = { direction == .followers ? $0.fromUserID : $0.toUserID }
            let accounts = try AccountStore().find(ids: follows.map(otherID), on: connection)
            let byID = Dictionary(uniqueKeysWithValues: zip(accounts.map(\.id), try Presenter(identity, connection).users(accounts)))
            let rows = follows.compactMap { follow in byID[otherID(follow)].map { (follow, $0) } }
            return Page.make(rows: rows, limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.time($0.0.createdAt, $0.0.id) }, item: { $0.1 })
        })
    }

    private func account(_ context: Context) throws -> Account {
        let key = try context.parameters.require("id")
        guard let account = try database.read({ connection in try AccountStore().find(idOrUsername: key, on: connection) }) else {
            throw APIError.notFound("No such user.")
        }
        return account
    }

    private func present(_ account: Account, _ context: Context) throws -> Response {
        .json(200, try database.read { connection in try Presenter(context.identity, connection).user(account) })
    }
}
