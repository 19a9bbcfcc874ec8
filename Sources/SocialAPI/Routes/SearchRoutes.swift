import Auth
import Community
import HTTP
import Storage
import VideoRegistry

/// API.md "Search": users and videos, every word matching (the last as a prefix), case- and
/// accent-insensitive, best match first.
struct SearchRoutes {
    let search: SearchReads
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/search/users", policy: .session, users)
        router.get("/v1/search/videos", policy: .session, videos)
    }

    @Sendable func users(_ request: Request, _ context: Context) throws -> Response {
        let (query, text) = try Self.query(request)
        let page = try PageRequest.parse(request, codec: codec, scope: "search-users|\(query.prefixMatch)")
        return .page(try search.users(query, exactUsername: TextRules.trimmed(text), for: context.identity, page: page), page)
    }

    @Sendable func videos(_ request: Request, _ context: Context) throws -> Response {
        let (query, _) = try Self.query(request)
        let page = try PageRequest.parse(request, codec: codec, scope: "search-videos|\(query.prefixMatch)")
        return .page(try search.videos(query, for: context.identity, page: page), page)
    }

    /// `q` is 1 to 200 characters after trimming, counted like every text limit (API.md "Text").
    static let qRule = TextRule("A search (q)", characters: 1...SearchQuery.maxInputLength)

    private static func query(_ request: Request) throws(APIError) -> (SearchQuery, String) {
        let text = try qRule.validated(request.query["q"] ?? "") { APIError.validation("q", $0) }
        guard let query = SearchQuery(text) else { throw APIError.validation("q", "q needs at least one word.") }
        return (query, text)
    }
}
