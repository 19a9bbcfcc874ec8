/// Where a page of a newest-first (or, for comments, oldest-first) list starts: the
/// `(created_at, id)` of the item before it, in a link's query (`?before=` or `?after=`).
///
/// Unlike `/v1`'s cursors it carries no signature: a position names nothing private (every
/// statement still applies the anonymous reader's visibility), and a made-up one only starts a
/// list at another place. Its shape is checked, so a bad one is a 400 page, never a 5xx.
struct WebCursor: Equatable {
    let createdAt: Int64
    let id: String

    /// `MILLIS-ID`, as `text` writes it; nil for anything else.
    init?(_ text: String) {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count <= 19, let millis = Int64(parts[0]), millis >= 0,
              (1...64).contains(parts[1].count), parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        createdAt = millis
        id = String(parts[1])
    }

    init(createdAt: Int64, id: String) {
        self.createdAt = createdAt
        self.id = id
    }

    var text: String { "\(createdAt)-\(id)" }
}
