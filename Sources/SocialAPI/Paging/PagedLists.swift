import HTTP
import JSON
import Storage

/// Answers the keyset-paged lists of every read model the same way: `limit + 1` rows fetched
/// (the extra one only says a next page exists), the shown rows presented, all inside one
/// read transaction so a page is one snapshot.
struct PagedLists: Sendable {
    let database: any Database
    let codec: CursorCodec

    /// - Parameters:
    ///   - page: the parsed `limit` and `cursor`, read for the list's scope (which names the
    ///     list exactly, and the caller for per-caller lists; a cursor only works on the scope
    ///     it was made for).
    ///   - fetch: the rows after a position (nil: from the start), at most `limit` of them.
    ///   - position: the keyset position of a row, stored in the next page's cursor.
    ///   - present: the API objects for the shown rows, in order.
    func page<Row, Item: JSONEncodable>(
        _ page: PageRequest,
        fetch: (_ after: [CursorValue]?, _ limit: Int, any DatabaseConnection) throws -> [Row],
        position: (Row) -> [CursorValue],
        present: ([Row], any DatabaseConnection) throws -> [Item]
    ) throws -> Page<Item> {
        try database.read { connection in
            try Page.make(rows: try fetch(page.after, page.limit + 1, connection), limit: page.limit, scope: page.scope, codec: codec,
                          position: position, items: { try present($0, connection) })
        }
    }
}

extension Response {
    /// A page as a 200 JSON response.
    static func page<Item: JSONEncodable>(_ page: Page<Item>, _ request: PageRequest) -> Response {
        // Room for a presented video or activity per item (1 to 2 KiB), so a page is written
        // without regrowing the buffer (each regrowth copies everything written so far).
        var writer = JSONWriter(capacity: 2_048 * (request.limit + 1))
        page.encode(to: &writer)
        return .json(200, writer: writer)
    }
}
