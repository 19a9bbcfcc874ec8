import Auth
import HTTP
import Storage
import VideoRegistry

/// API.md "Search": users and videos, every word matching (the last as a prefix), case- and
/// accent-insensitive, best match first.
struct SearchRoutes {
    let database: any Database
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/search/users", users)
        router.get("/v1/search/videos", videos)
    }

    @Sendable func users(_ request: Request, _ context: Context) throws -> Response {
        let (query, text) = try Self.query(request)
        let scope = "search-users|\(query.prefixMatch)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        let identity = context.identity
        return .json(200, try database.read { connection in
            let found = try SearchStore().users(query, exactUsername: TextRules.trimmed(text), after: try Positions.ranked(page.after), limit: page.limit + 1, on: connection)
            let presented = try Presenter(identity, connection).users(found.map(\.0))
            return Page.make(rows: Array(zip(found.map(\.1), presented)), limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.ranked($0.0.tier, $0.0.rank, $0.0.id) }, item: { $0.1 })
        })
    }

    @Sendable func videos(_ request: Request, _ context: Context) throws -> Response {
        let (query, _) = try Self.query(request)
        let scope = "search-videos|\(query.prefixMatch)"
        let page = try PageRequest.parse(request, codec: codec, scope: scope)
        let identity = context.identity
        return .json(200, try database.read { connection in
            let found = try SearchStore().videos(query, viewer: Viewer(identity), after: try Positions.ranked(page.after), limit: page.limit + 1, on: connection)
            let presented = try Presenter(identity, connection).videos(found.map(\.0))
            return Page.make(rows: Array(zip(found.map(\.1), presented)), limit: page.limit, scope: scope, codec: codec,
                             position: { Positions.ranked($0.0.tier, $0.0.rank, $0.0.id) }, item: { $0.1 })
        })
    }

    private static func query(_ request: Request) throws(APIError) -> (SearchQuery, String) {
        let text = request.query["q"] ?? ""
        guard let query = SearchQuery(text) else { throw APIError.validation("q", "q needs at least one word.") }
        return (query, text)
    }
}
