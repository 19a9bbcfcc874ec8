import Auth
import HTTP
import JSON

/// API.md "Sync": `GET /v1/changes?since=<token>&limit=N`, the change log of rallies and
/// videos. Open under `--public-read` like the rallies and videos it carries (an anonymous
/// reader sees what anonymous reads show).
struct ChangeRoutes {
    let changes: ChangeReads
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/changes", policy: .publicRead, list)
    }

    @Sendable func list(_ request: Request, _ context: Context) throws -> Response {
        let limit = try queryInt(request, "limit", default: ChangeReads.defaultLimit, range: ChangeReads.limitRange)
        var since: ChangeToken?
        if let text = request.query["since"], !text.isEmpty {
            do {
                since = try ChangeToken.decode(text, codec: codec, callerID: context.identity?.userID)
            } catch {
                throw APIErrors.map(error, field: "since")
            }
        }
        let page = try changes.page(since: since, limit: limit, for: context.identity)
        // Room for a presented video per change (1 to 2 KiB), as list pages reserve.
        var writer = JSONWriter(capacity: 2_048 * (limit + 1))
        page.encode(to: &writer)
        return .json(200, writer: writer)
    }
}
