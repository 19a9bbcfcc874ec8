import Auth
import HTTP
import Storage
import VideoRegistry

/// API.md "Feeds": home, news, following and likes, each a page for the signed-in caller.
/// Cursors are bound to the feed and to the caller.
struct FeedRoutes {
    let database: any Database
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/feed/home", home)
        router.get("/v1/feed/news", news)
        router.get("/v1/feed/following", following)
        router.get("/v1/feed/likes", likes)
    }

    @Sendable func home(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let scope = "feed-home|\(me.userID)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        return .json(200, try database.read { connection in
            let rows = try FeedStore().home(readerSeq: me.userSeq, viewer: Viewer(me), after: try Positions.seq(page.after), limit: page.limit + 1, on: connection)
            let presented = try Presenter(me, connection).videos(rows.map(\.0))
            return Page.make(rows: Array(zip(rows.map(\.1), presented)), limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.seq($0.0.createdAt, $0.0.seq) }, item: { $0.1 })
        })
    }

    @Sendable func following(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let scope = "feed-following|\(me.userID)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        return .json(200, try database.read { connection in
            let rows = try FeedStore().following(readerSeq: me.userSeq, viewer: Viewer(me), after: try Positions.seq(page.after), limit: page.limit + 1, on: connection)
            let presented = try Presenter(me, connection).activities(rows.map(\.0))
            return Page.make(rows: Array(zip(rows.map(\.1), presented)), limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.seq($0.0.createdAt, $0.0.seq) }, item: { $0.1 })
        })
    }

    @Sendable func news(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let scope = "feed-news|\(me.userID)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        return .json(200, try database.read { connection in
            let rows = try FeedStore().news(readerID: me.userID, after: try Positions.time(page.after), limit: page.limit + 1, on: connection)
            let presented = try Presenter(me, connection).activities(rows)
            return Page.make(rows: Array(zip(rows, presented)), limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.time($0.0.createdAt, $0.0.id) }, item: { $0.1 })
        })
    }

    @Sendable func likes(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let scope = "feed-likes|\(me.userID)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        return .json(200, try database.read { connection in
            let rows = try FeedStore().likes(readerID: me.userID, viewer: Viewer(me), after: try Positions.time(page.after), limit: page.limit + 1, on: connection)
            let presented = try Presenter(me, connection).videos(rows.map(\.0))
            return Page.make(rows: Array(zip(rows.map(\.1), presented)), limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.time($0.0.createdAt, $0.0.id) }, item: { $0.1 })
        })
    }
}
