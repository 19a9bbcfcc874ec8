import Storage

/// Where a refresh (`?newerThan=`) of a newest-first list starts (API.md, "Sync"): a keyset
/// position below which the client has every item and no item can still arrive, and the
/// items above it the client was already shown.
///
/// Why not just the first item's position: an item's position is taken when it is written,
/// and it becomes visible when its transaction commits, which on PostgreSQL with several
/// servers (or behind SQLite's write lock) can be after a newer item's. A reader that took
/// the newer item's position as its mark would never be shown the older one. So the mark is
/// never above the settle horizon (`RefreshHorizon`): once every transaction that could still
/// write below a position has had time to commit, nothing new can appear there. Items the
/// client was shown above the mark travel in `shown`, so the next refresh leaves them out:
/// no gap and no repeat.
struct RefreshPosition: Sendable, Equatable {
    /// Everything at or below it the client has; nothing new can appear there.
    let mark: [CursorValue]
    /// Positions above `mark` of the items the client was shown.
    let shown: [[CursorValue]]

    /// The cursor's values: the position's arity, the mark, then each shown position.
    var values: [CursorValue] {
        [.int(Int64(mark.count))] + mark + shown.joined()
    }

    /// Reads `values`; nil when they are not in that shape.
    init?(values: [CursorValue]) {
        guard case .int(let count) = values.first, (1...4).contains(count) else { return nil }
        let arity = Int(count)
        let rest = values.dropFirst()
        guard rest.count >= arity, (rest.count - arity) % arity == 0 else { return nil }
        mark = Array(rest.prefix(arity))
        shown = stride(from: rest.startIndex + arity, to: rest.endIndex, by: arity).map { Array(rest[$0..<($0 + arity)]) }
    }

    init(mark: [CursorValue], shown: [[CursorValue]]) {
        self.mark = mark
        self.shown = shown
    }
}

/// What a list tells the refresh logic about its rows: how old a row must be before nothing
/// can commit below it (`settled`), and the position that splits the settled rows from the
/// rest (`horizon`: every row above it is unsettled).
struct RefreshHorizon<Row> {
    /// How long a write may take from taking its position to committing it. Our write
    /// transactions take milliseconds; five seconds also covers a PostgreSQL serialization
    /// retry and a wait for SQLite's write lock behind a busy writer. An item that arrives later
    /// than that after its own time (a follow's copy of older videos, a fan-out the outbox
    /// delayed) lands in the list's past: the full list shows it, a refresh does not.
    static var settleMillis: Int64 { 5_000 }

    let settled: (Row) -> Bool
    let horizon: (any DatabaseConnection) throws -> [CursorValue]
    /// Below every row: the mark of an empty list, which holds nothing yet.
    let start: [CursorValue]

    /// Lists ordered by `(createdAt, id)` or `(createdAt, seq)` where `createdAt` is the
    /// write's own time: a row is settled once it is older than the settle window; the
    /// horizon is the first position past that time (`tiebreak` is the smallest second value).
    static func byTime(now: Int64, createdAt: @escaping (Row) -> Int64, tiebreak: CursorValue) -> RefreshHorizon {
        let cutoff = now - settleMillis
        return RefreshHorizon(settled: { createdAt($0) <= cutoff }, horizon: { _ in [.int(cutoff + 1), tiebreak] }, start: [.int(.min), tiebreak])
    }
}

extension RefreshPosition {
    /// Where a client stands after a page read down from the head or from a cursor. The mark
    /// is the newest settled row shown, with the rows above it as `shown`; on a page of
    /// unsettled rows only, its oldest row, with the others as `shown` (a row committed later
    /// below the page lies in the part of the list `nextCursor` reads, not above the page). An
    /// empty list marks its start, so the same empty answer is the same body (and a 304); an
    /// empty page past a cursor, the horizon. `rows` are the shown rows newest first.
    static func after<Row>(olderPage rows: [Row], fromHead: Bool, position: (Row) -> [CursorValue], horizon: RefreshHorizon<Row>,
                           on connection: any DatabaseConnection) throws -> RefreshPosition {
        guard !rows.isEmpty else { return RefreshPosition(mark: fromHead ? horizon.start : try horizon.horizon(connection), shown: []) }
        let markIndex = rows.firstIndex(where: horizon.settled) ?? rows.count - 1
        return RefreshPosition(mark: position(rows[markIndex]), shown: rows[..<markIndex].map(position))
    }

    /// Where a client stands after a refresh from `self` that answered `rows` (oldest first);
    /// `more` when rows above the last of them were left for the next refresh.
    ///
    /// Without more, the client has everything above the old mark, so the mark moves up to
    /// the horizon; with more, only as far as the last row answered. Never down: nothing can
    /// appear below an old mark either. `shown` keeps what the client has above the new mark.
    /// A refresh that brought nothing answers the same position, so asking again while nothing
    /// arrives is the same body (a 304 with its ETag).
    func advanced<Row>(by rows: [Row], more: Bool, position: (Row) -> [CursorValue], horizon: RefreshHorizon<Row>,
                       on connection: any DatabaseConnection) throws -> RefreshPosition {
        guard !rows.isEmpty else { return self }
        var candidate = try horizon.horizon(connection)
        if more, let last = rows.last, horizon.settled(last) {
            candidate = position(last)
        }
        let mark = Self.isBelow(candidate, mark) ? self.mark : candidate
        let known = shown + rows.map(position)
        return RefreshPosition(mark: mark, shown: known.filter { !Self.isBelow($0, mark) && $0 != mark })
    }

    /// Whether `a` lies below `b` in keyset order. Only a strict difference of the leading
    /// integer (a time or a seq) counts: string ids are ordered by the database's collation,
    /// which Swift need not share, so on a tie a shown position is kept (a harmless extra
    /// exclusion) rather than dropped (which could repeat an item).
    static func isBelow(_ a: [CursorValue], _ b: [CursorValue]) -> Bool {
        guard case .int(let x) = a.first, case .int(let y) = b.first else { return false }
        return x < y
    }
}
