import HTTP
import JSON
import Storage
import Telemetry

/// Answers the keyset-paged lists of every read model the same way: `limit + 1` rows fetched
/// (the extra one only says a next page exists), the shown rows presented, all inside one
/// read transaction so a page is one snapshot.
struct PagedLists: Sendable {
    let database: any Database
    let codec: CursorCodec
    let clock: any WallClock

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

    /// A page of a list ordered by time, which also carries `prevCursor` and answers
    /// `newerThan` (API.md, "Sync"; `RefreshPosition` says how a refresh never skips or repeats).
    ///
    /// - Parameters:
    ///   - fetch: at most `limit` rows from a position, down the list (`.older`, nil: from the
    ///     head) or up from it, nearest first (`.newer`).
    ///   - newestFirst: the list's own order; false for one read oldest first (comments), whose
    ///     `.older` and `.newer` reads are then the same.
    ///   - horizon: when the list's rows settle (`RefreshHorizon`).
    func refreshablePage<Row, Item: JSONEncodable>(
        _ page: PageRequest,
        newestFirst: Bool = true,
        fetch: (_ from: [CursorValue]?, _ direction: KeysetDirection, _ limit: Int, any DatabaseConnection) throws -> [Row],
        position: (Row) -> [CursorValue],
        horizon: RefreshHorizon<Row>,
        present: ([Row], any DatabaseConnection) throws -> [Item]
    ) throws -> Page<Item> {
        try database.read { connection in
            guard let newer = page.newer else {
                let rows = try fetch(page.after, .older, page.limit + 1, connection)
                var result = try Page.make(rows: rows, limit: page.limit, scope: page.scope, codec: codec, position: position,
                                           items: { try present($0, connection) })
                let shown = rows.prefix(page.limit)
                let mark = try RefreshPosition.after(olderPage: newestFirst ? Array(shown) : shown.reversed(), fromHead: page.after == nil, position: position,
                                                     horizon: horizon, on: connection)
                result.prevCursor = codec.encode(mark.values, scope: page.refreshScope)
                return result
            }
            // The shown ones are above the mark, so at most that many more rows are read to
            // fill the page after leaving them out.
            let excluded = Set(newer.shown)
            let rows = try fetch(newer.mark, .newer, page.limit + excluded.count + 1, connection).filter { !excluded.contains(position($0)) }
            let more = rows.count > page.limit
            let answered = Array(rows.prefix(page.limit))
            let next = try newer.advanced(by: answered, more: more, position: position, horizon: horizon, on: connection)
            return Page(items: try present(answered.reversed(), connection), nextCursor: nil,
                        prevCursor: codec.encode(next.values, scope: page.refreshScope), hasNewer: more)
        }
    }

    /// The horizon of a list positioned by the writes' own times (`RefreshHorizon.byTime`), now.
    func byTime<Row>(_ createdAt: @escaping (Row) -> Int64, tiebreak: CursorValue) -> RefreshHorizon<Row> {
        .byTime(now: clock.nowMillis(), createdAt: createdAt, tiebreak: tiebreak)
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
