import HTTP

/// The paging parameters of a list request (API.md, "Conventions"): `limit` and `cursor`.
struct PageRequest: Sendable {
    static let defaultLimit = 20
    static let limitRange = 1...100

    /// How many items the page holds at most; fetch `limit + 1` rows to know if there is more.
    let limit: Int
    /// The keyset position to continue after; nil for the first page.
    let after: [CursorValue]?
    /// The list the cursor was read for; the next page's cursor is made for it too.
    let scope: String

    /// Reads `limit` (default 20; outside 1...100 or not a number is 400 `validation_failed`,
    /// field `limit`) and `cursor` (decoded for `scope`; 400 `invalid_cursor` when it is not a
    /// cursor of this list). An absent or empty `cursor` means the first page.
    static func parse(_ request: Request, codec: CursorCodec, scope: String) throws(APIError) -> PageRequest {
        let limit = try queryInt(request, "limit", default: defaultLimit, range: limitRange)
        guard let cursor = request.query["cursor"], !cursor.isEmpty else {
            return PageRequest(limit: limit, after: nil, scope: scope)
        }
        do {
            return PageRequest(limit: limit, after: try codec.decode(cursor, scope: scope), scope: scope)
        } catch {
            throw APIErrors.map(error)
        }
    }
}
