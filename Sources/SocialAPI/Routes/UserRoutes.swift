import Auth
import Community
import HTTP
import Storage
import VideoRegistry

/// A user's follow, and the lists on a profile: videos, followers, following (newest first).
struct UserRoutes {
    let users: UserReads
    let videos: VideoReads
    let codec: CursorCodec
    let social: Social

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
        let page = try PageRequest.parse(request, codec: codec, scope: "user-videos|\(user.id)", refreshable: true)
        return .page(try videos.byOwner(user.id, for: context.identity, page: page), page)
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
        let page = try PageRequest.parse(request, codec: codec, scope: "user-\(direction == .followers ? "followers" : "following")|\(user.id)",
                                         refreshable: true)
        return .page(try users.follows(direction, of: user.id, for: context.identity, page: page), page)
    }

    /// The user the path names, if the caller may see their lists: a banned account's are
    /// 404 for everyone but moderators and admins, as its profile is (API.md "Visibility").
    private func account(_ context: Context) throws -> Account {
        guard let account = try users.account(idOrUsername: try context.parameters.require("id")),
              Viewer(context.identity).canSee(account) else {
            throw APIError.notFound("No such user.")
        }
        return account
    }

    private func present(_ account: Account, _ context: Context) throws -> Response {
        .json(200, try users.user(account, for: context.identity))
    }
}
