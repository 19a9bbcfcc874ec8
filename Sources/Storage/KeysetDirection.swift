/// Which way a keyset page of a newest-first list reads from its position.
///
/// Every newest-first list is ordered by a tuple descending, so both ways are one seek on the
/// same index: `.older` continues a page downwards (`nextCursor`), `.newer` reads what lies
/// above a position (`newerThan`), nearest first, so that a long absence is walked up in pages
/// rather than answered from the head with a gap below it.
public enum KeysetDirection: Sendable, Equatable {
    case older, newer

    /// The row comparison against the position: `(cols) < (position)` for older rows.
    public var comparison: SQL { self == .older ? "<" : ">" }

    /// The order a page reads in: newest first going down, oldest first going up.
    public var order: SQL { self == .older ? "DESC" : "ASC" }
}
