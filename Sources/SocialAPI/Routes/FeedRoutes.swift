import Community
import Auth
import HTTP
import Storage
import VideoRegistry

/// API.md "Feeds": home, news, following and likes, each a page for the signed-in caller.
/// Cursors are bound to the feed and to the caller.
struct FeedRoutes {
    let feeds: FeedReads
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/feed/home", policy: .session, home)
        router.get("/v1/feed/news", policy: .session, news)
        router.get("/v1/feed/following", policy: .session, following)
        router.get("/v1/feed/likes", policy: .session, likes)
    }

    @Sendable func home(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let page = try PageRequest.parse(request, codec: codec, scope: "feed-home|\(me.userID)")
        return .page(try feeds.home(for: me, page: page), page)
    }

    @Sendable func following(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let page = try PageRequest.parse(request, codec: codec, scope: "feed-following|\(me.userID)")
        return .page(try feeds.following(for: me, page: page), page)
    }

    @Sendable func news(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let page = try PageRequest.parse(request, codec: codec, scope: "feed-news|\(me.userID)")
        return .page(try feeds.news(for: me, page: page), page)
    }

    @Sendable func likes(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let page = try PageRequest.parse(request, codec: codec, scope: "feed-likes|\(me.userID)")
        return .page(try feeds.likes(for: me, page: page), page)
    }
}
