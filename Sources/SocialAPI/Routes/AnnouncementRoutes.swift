import Auth
import Community
import HTTP
import JSON
import Storage

/// API.md "Announcements and alerts": admins write, list and cancel announcements.
struct AnnouncementRoutes {
    let announcements: Announcements
    let lists: PagedLists
    let codec: CursorCodec

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.post("/v1/announcements", policy: .session(pool: .blocking), create)
        router.get("/v1/announcements", policy: .session, list)
        router.delete("/v1/announcements/{id}", policy: .session(pool: .blocking), cancel)
    }

    @Sendable func create(_ request: Request, _ context: Context) throws -> Response {
        let identity = try context.admin()
        let draft = try Self.draft(JSONBody.parse(request))
        return .json(201, AnnouncementJSON(announcement: try announcements.create(draft, by: identity)))
    }

    /// Newest first.
    @Sendable func list(_ request: Request, _ context: Context) throws -> Response {
        _ = try context.admin()
        let page = try PageRequest.parse(request, codec: codec, scope: "announcements")
        let store = AnnouncementStore()
        return .page(try lists.page(page,
            fetch: { after, limit, connection in try store.page(after: try Positions.seqOnly(after), limit: limit, on: connection) },
            position: { Positions.seqOnly($0.seq) },
            present: { rows, _ in rows.map(AnnouncementJSON.init(announcement:)) }), page)
    }

    @Sendable func cancel(_ request: Request, _ context: Context) throws -> Response {
        let identity = try context.admin()
        try announcements.cancel(id: try context.parameters.require("id"), by: identity)
        return .noContent()
    }

    /// The body's shape, checked here; the texts' and the time's rules are the domain's.
    static func draft(_ body: JSONBody) throws(APIError) -> AnnouncementDraft {
        // Errors name the object (`title`, `body`), not its member: that is the field a form shows.
        func localized(_ key: String) throws(APIError) -> LocalizedText {
            guard let object = try body.object(key) else { throw APIError.validation(key, "\(key) is required: {\"en\": …, \"es\": …}.") }
            guard case .string(let en)? = object.raw["en"] else { throw APIError.validation(key, "\(key).en is required, a string.") }
            switch object.raw["es"] {
            case nil, .null?: return LocalizedText(en: en, es: nil)
            case .string(let es)?: return LocalizedText(en: en, es: es)
            default: throw APIError.validation(key, "\(key).es is a string.")
            }
        }
        let audience: Audience
        switch body.raw["audience"] {
        case nil, .null?, .string("all")?:
            audience = .everyone
        case .object(let members)?:
            guard members.count == 1, let id = members["rallyId"]?.stringValue else {
                throw APIError.validation("audience", "audience is \"all\" or {\"rallyId\": id}.")
            }
            audience = .rally(id: id)
        default:
            throw APIError.validation("audience", "audience is \"all\" or {\"rallyId\": id}.")
        }
        var sendAt: Int64?
        if let text = try body.string("sendAt") {
            guard let millis = ISO8601Millis.parse(text) else {
                throw APIError.validation("sendAt", "sendAt is an ISO 8601 UTC time such as 2026-05-01T09:00:00.000Z.")
            }
            sendAt = millis
        }
        return AnnouncementDraft(title: try localized("title"), body: try localized("body"), audience: audience, sendAt: sendAt)
    }
}
