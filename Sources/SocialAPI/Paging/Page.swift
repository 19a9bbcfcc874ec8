import JSON

/// One page of a list: `{"items":[…],"nextCursor":null|"…"}` (API.md, "Conventions"), with
/// `"prevCursor"` on lists ordered by time and `"hasNewer"` on a refresh (API.md, "Sync").
struct Page<Item: JSONEncodable>: JSONEncodable {
    let items: [Item]
    /// The cursor of the next page; nil on the last page.
    let nextCursor: String?
    /// Where a refresh of this page starts (`?newerThan=`); nil on lists not ordered by time,
    /// where the key is left out.
    var prevCursor: String? = nil
    /// On a refresh: whether more arrived above this page than it holds. Nil (left out) elsewhere.
    var hasNewer: Bool? = nil

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.writeArray(items) { writer, item in writer.value(item) }
        writer.field("nextCursor", nextCursor)
        if let prevCursor { writer.field("prevCursor", prevCursor) }
        if let hasNewer { writer.field("hasNewer", hasNewer) }
        writer.endObject()
    }
}

extension Page: Sendable where Item: Sendable {}

extension Page {
    /// Builds a page from `limit + 1` fetched rows: the extra row only says there is a next page.
    ///
    /// With more than `limit` rows, the page holds the first `limit` and `nextCursor` encodes
    /// the position of the last of them (the next query continues strictly after it); with
    /// `limit` rows or fewer, it holds them all and `nextCursor` is nil.
    ///
    /// - Precondition: `limit >= 1` (PageRequest guarantees it).
    /// `items` presents only the shown rows, in order.
    static func make<Row>(
        rows: [Row], limit: Int, scope: String, codec: CursorCodec,
        position: (Row) -> [CursorValue], items: ([Row]) throws -> [Item]
    ) rethrows -> Page {
        precondition(limit >= 1, "Page.make: limit must be at least 1")
        guard rows.count > limit else {
            return Page(items: try items(rows), nextCursor: nil)
        }
        let shown = Array(rows[..<limit])
        return Page(items: try items(shown), nextCursor: codec.encode(position(shown[limit - 1]), scope: scope))
    }
}
