import Auth
import HTTP
import JSON
import Storage
import VideoRegistry

/// API.md "Rallies": the season list, one rally, admin writes, and a rally day's videos.
struct RallyRoutes {
    let videos: VideoReads
    let codec: CursorCodec
    let rallies: Rallies

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/rallies", policy: .publicRead, list)
        router.post("/v1/rallies", policy: .session(pool: .blocking), create)
        router.get("/v1/rallies/{id}", policy: .publicRead, rally)
        router.patch("/v1/rallies/{id}", policy: .session(pool: .blocking), update)
        router.delete("/v1/rallies/{id}", policy: .session(pool: .blocking), delete)
        router.get("/v1/rallies/{id}/days/{n}/videos", policy: .publicRead, dayVideos)
    }

    @Sendable func list(_ request: Request, _ context: Context) throws -> Response {
        var season: Int?
        if let text = request.query["season"] {
            guard text.utf8.count == 4, let year = Int(text), year >= 1900 else {
                throw APIError.validation("season", "season is a four-digit year.")
            }
            season = year
        }
        let today = rallies.today
        return .json(200, ItemsJSON(items: try rallies.list(season: season).map { RallyJSON(rally: $0, today: today) }))
    }

    @Sendable func rally(_ request: Request, _ context: Context) throws -> Response {
        .json(200, RallyJSON(rally: try rallies.rally(id: try context.parameters.require("id")), today: rallies.today))
    }

    @Sendable func create(_ request: Request, _ context: Context) throws -> Response {
        let input = try Self.input(try JSONBody.parse(request))
        let rally = try rallies.create(input, by: try context.caller())
        return .json(201, RallyJSON(rally: rally, today: rallies.today))
    }

    @Sendable func update(_ request: Request, _ context: Context) throws -> Response {
        let input = try Self.input(try JSONBody.parse(request))
        let rally = try rallies.update(id: try context.parameters.require("id"), input, by: try context.caller())
        return .json(200, RallyJSON(rally: rally, today: rallies.today))
    }

    @Sendable func delete(_ request: Request, _ context: Context) throws -> Response {
        try rallies.delete(id: try context.parameters.require("id"), by: try context.caller())
        return .noContent()
    }

    /// `GET /v1/rallies/{id}/days/{n}/videos?sort=recent|top`.
    @Sendable func dayVideos(_ request: Request, _ context: Context) throws -> Response {
        let rally = try rallies.rally(id: try context.parameters.require("id"))
        guard let day = Int(try context.parameters.require("n")), rally.hasDay(day) else {
            throw APIError.notFound("That rally has no such day.")
        }
        let sort = request.query["sort"] ?? "recent"
        guard sort == "recent" || sort == "top" else { throw APIError.validation("sort", "sort is recent or top.") }
        let page = try PageRequest.parse(request, codec: codec, scope: "rally-day-videos|\(rally.id)|\(day)|\(sort)",
                                         refreshable: sort == "recent")
        return .page(try videos.rallyDay(rally.id, day: day, top: sort == "top", for: context.identity, page: page), page)
    }

    /// Reads the rally fields of a POST or PATCH body; dates are `YYYY-MM-DD`.
    static func input(_ body: JSONBody) throws -> Rallies.Input {
        Rallies.Input(
            name: try body.string("name"),
            country: try body.string("country"),
            startDay: try date(body, "startDate"),
            endDay: try date(body, "endDate")
        )
    }

    private static func date(_ body: JSONBody, _ key: String) throws(APIError) -> Int? {
        guard let text = try body.string(key) else { return nil }
        guard let day = CalendarDate.parse(text) else { throw APIError.validation(key, "\(key) is a date written YYYY-MM-DD.") }
        return day
    }
}
