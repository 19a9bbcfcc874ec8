import Auth
import HTTP
import JSON
import Storage
import VideoRegistry

/// API.md "Feeds": home, news, following and likes, each a page for the signed-in caller.
/// Cursors are bound to the feed and to the caller.
struct FeedRoutes {
    let feeds: FeedReads
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        let feeds = feeds
        feed("home", on: router) { try feeds.home(for: $0, page: $1) }
        feed("news", on: router) { try feeds.news(for: $0, page: $1) }
        feed("following", on: router) { try feeds.following(for: $0, page: $1) }
        feed("likes", on: router) { try feeds.likes(for: $0, page: $1) }
    }

    /// `GET /v1/feed/<name>`: the caller's page, its cursor bound to the feed and the caller.
    private func feed<Item: JSONEncodable>(
        _ name: String, on router: RouterBuilder<Accounts.Identity>,
        _ read: @escaping @Sendable (Accounts.Identity, PageRequest) throws -> Page<Item>
    ) {
        let codec = codec
        router.get("/v1/feed/\(name)", policy: .session) { request, context in
            let me = try context.caller()
            let page = try PageRequest.parse(request, codec: codec, scope: "feed-\(name)|\(me.userID)", refreshable: true)
            return .page(try read(me, page), page)
        }
    }
}
