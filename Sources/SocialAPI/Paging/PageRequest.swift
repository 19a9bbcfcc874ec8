import HTTP
import Storage

/// The paging parameters of a list request (API.md, "Conventions" and "Sync"): `limit`, and
/// `cursor` (a page further down) or `newerThan` (a refresh: what arrived above a page).
struct PageRequest: Sendable {
    static let defaultLimit = 20
    static let limitRange = 1...100

    /// How many items the page holds at most; fetch `limit + 1` rows to know if there is more.
    let limit: Int
    /// The keyset position to continue after; nil for the first page.
    let after: [CursorValue]?
    /// Where a refresh starts; nil unless the request is one.
    let newer: RefreshPosition?
    /// The list the cursor was read for; the next page's cursor is made for it too.
    let scope: String
    /// Whether the list is ordered by time, so its pages carry `prevCursor` and take
    /// `newerThan` (not `sort=top`, search, the moderation lists).
    let refreshable: Bool

    /// The scope of `prevCursor`s: another than `nextCursor`'s, so neither passes for the other.
    var refreshScope: String { Self.refreshScope(scope) }
    private static func refreshScope(_ scope: String) -> String { scope + "|newer" }

    /// Reads `limit` (default 20; outside 1...100 or not a number is 400 `validation_failed`,
    /// field `limit`), `cursor` (decoded for `scope`; 400 `invalid_cursor` when it is not a
    /// cursor of this list) and, for a `refreshable` list, `newerThan` (a `prevCursor` of this
    /// list; on any other list 400 `validation_failed`, field `newerThan`). An absent or empty
    /// `cursor` means the first page; `cursor` and `newerThan` together are 400.
    static func parse(_ request: Request, codec: CursorCodec, scope: String, refreshable: Bool = false) throws(APIError) -> PageRequest {
        let limit = try queryInt(request, "limit", default: defaultLimit, range: limitRange)
        let cursor = request.query["cursor"].flatMap { $0.isEmpty ? nil : $0 }
        guard let newerThan = request.query["newerThan"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            do {
                return PageRequest(limit: limit, after: try cursor.map { cursor throws(CursorError) in try codec.decode(cursor, scope: scope) },
                                   newer: nil, scope: scope, refreshable: refreshable)
            } catch {
                throw APIErrors.map(error)
            }
        }
        guard refreshable else {
            throw APIError.validation("newerThan", "This list is not ordered by time: it has no newerThan, only cursor.")
        }
        guard cursor == nil else { throw APIError.validation("newerThan", "Send cursor or newerThan, not both.") }
        do throws(CursorError) {
            let values = try codec.decode(newerThan, scope: refreshScope(scope), maximumLength: CursorCodec.maximumRefreshLength)
            guard let position = RefreshPosition(values: values) else { throw CursorError.foreignShape }
            return PageRequest(limit: limit, after: nil, newer: position, scope: scope, refreshable: true)
        } catch {
            throw APIErrors.map(error, field: "newerThan")
        }
    }
}
