import Community
import Auth
import HTTP
import Storage
import VideoRegistry

/// API.md "Search": users and videos, every word matching (the last as a prefix), case- and
/// accent-insensitive, best match first.
struct SearchRoutes {
    let lists: PagedLists

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/search/users", policy: .session, users)
        router.get("/v1/search/videos", policy: .session, videos)
    }

    @Sendable func users(_ request: Request, _ context: Context) throws -> Response {
        let (query, text) = try Self.query(request)
        let identity = context.identity
        return try lists.respond(request, scope: "search-users|\(query.prefixMatch)",
            fetch: { after, limit, connection in
                try SearchStore().users(query, exactUsername: TextRules.trimmed(text), after: try Positions.search(after), limit: limit, on: connection)
            },
            position: { Positions.search($0.1) },
            present: { rows, connection in try Presenter(identity, connection).users(rows.map(\.0)) })
    }

    @Sendable func videos(_ request: Request, _ context: Context) throws -> Response {
        let (query, _) = try Self.query(request)
        let identity = context.identity
        return try lists.respond(request, scope: "search-videos|\(query.prefixMatch)",
            fetch: { after, limit, connection in
                try SearchStore().videos(query, viewer: Viewer(identity), after: try Positions.search(after), limit: limit,
                                         selecting: Presenter.videoSelection(for: identity), on: connection)
            },
            position: { Positions.search($0.1) },
            present: { rows, _ in rows.map(\.0) })
    }

    /// `q` is 1 to 200 characters after trimming, counted like every text limit (API.md "Text").
    static let qRule = TextRule("A search (q)", characters: 1...SearchQuery.maxInputLength)

    private static func query(_ request: Request) throws(APIError) -> (SearchQuery, String) {
        let text = try qRule.validated(request.query["q"] ?? "") { APIError.validation("q", $0) }
        guard let query = SearchQuery(text) else { throw APIError.validation("q", "q needs at least one word.") }
        return (query, text)
    }
}
