import Community
import Auth
import HTTP
import Storage
import VideoRegistry

/// API.md "Feeds": home, news, following and likes, each a page for the signed-in caller.
/// Cursors are bound to the feed and to the caller.
struct FeedRoutes {
    let lists: PagedLists

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/feed/home", policy: .session, home)
        router.get("/v1/feed/news", policy: .session, news)
        router.get("/v1/feed/following", policy: .session, following)
        router.get("/v1/feed/likes", policy: .session, likes)
    }

    @Sendable func home(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        return try lists.respond(request, scope: "feed-home|\(me.userID)",
            fetch: { after, limit, connection in
                try FeedStore().home(readerSeq: me.userSeq, viewer: Viewer(me), after: try Positions.seq(after), limit: limit,
                                     selecting: Presenter.followedVideoSelection(for: me), on: connection)
            },
            position: { Positions.seq($0.1.createdAt, $0.1.seq) },
            present: { rows, _ in rows.map(\.0) })
    }

    @Sendable func following(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        return try lists.respond(request, scope: "feed-following|\(me.userID)",
            fetch: { after, limit, connection in
                try FeedStore().following(readerSeq: me.userSeq, viewer: Viewer(me), after: try Positions.seq(after), limit: limit,
                                          selecting: Presenter.activitySelection(for: me), on: connection)
            },
            position: { Positions.seq($0.1.createdAt, $0.1.seq) },
            present: { rows, _ in rows.map(\.0) })
    }

    @Sendable func news(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        return try lists.respond(request, scope: "feed-news|\(me.userID)",
            fetch: { after, limit, connection in
                // Every item is aimed at the caller: their user object is read once (`caller`).
                try FeedStore().news(readerID: me.userID, viewer: Viewer(me), after: try Positions.time(after), limit: limit,
                                     selecting: Presenter.activitySelection(for: me, caller: try Presenter.callerUser(me, on: connection)),
                                     on: connection)
            },
            position: { Positions.time($0.1.createdAt, $0.1.id) },
            present: { rows, connection in try Presenter.withOwners(rows.map(\.0), callerID: me.userID, on: connection) })
    }

    @Sendable func likes(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        return try lists.respond(request, scope: "feed-likes|\(me.userID)",
            fetch: { after, limit, connection in
                try FeedStore().likes(readerID: me.userID, viewer: Viewer(me), after: try Positions.time(after), limit: limit,
                                      selecting: Presenter.videoSelection(for: me), on: connection)
            },
            position: { Positions.time($0.1.createdAt, $0.1.id) },
            present: { rows, _ in rows.map(\.0) })
    }
}
