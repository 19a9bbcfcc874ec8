import Community

/// The keyset positions our lists use, to and from cursor values. A cursor whose MAC is
/// valid but whose shape is not the list's (a cursor format from another release) is
/// refused like a tampered one.
enum Positions {
    /// `(createdAt, id)`: lists ordered by time, either direction.
    static func time(_ values: [CursorValue]?) throws(CursorError) -> (createdAt: Int64, id: String)? {
        guard let values else { return nil }
        guard values.count == 2, case .int(let time) = values[0], case .string(let id) = values[1] else { throw .foreignShape }
        return (time, id)
    }

    static func time(_ createdAt: Int64, _ id: String) -> [CursorValue] { [.int(createdAt), .string(id)] }

    /// Below every id at one time: a horizon at a time is `(time, timeTiebreak)`.
    static let timeTiebreak = CursorValue.string("")

    /// `(createdAt, seq)`: the feed timelines.
    static func seq(_ values: [CursorValue]?) throws(CursorError) -> (createdAt: Int64, seq: Int64)? {
        guard let values else { return nil }
        guard values.count == 2, case .int(let time) = values[0], case .int(let seq) = values[1] else { throw .foreignShape }
        return (time, seq)
    }

    static func seq(_ createdAt: Int64, _ seq: Int64) -> [CursorValue] { [.int(createdAt), .int(seq)] }

    /// Below every seq at one time.
    static let seqTiebreak = CursorValue.int(.min)

    /// `(seq)`: lists in the order rows were written (the inbox).
    static func seqOnly(_ values: [CursorValue]?) throws(CursorError) -> Int64? {
        guard let values else { return nil }
        guard values.count == 1, case .int(let seq) = values[0] else { throw .foreignShape }
        return seq
    }

    static func seqOnly(_ seq: Int64) -> [CursorValue] { [.int(seq)] }

    /// `(likes, createdAt, id)`: a rally day's top list.
    static func top(_ values: [CursorValue]?) throws(CursorError) -> (likes: Int, createdAt: Int64, id: String)? {
        guard let values else { return nil }
        guard values.count == 3, case .int(let likes) = values[0], case .int(let time) = values[1], case .string(let id) = values[2] else { throw .foreignShape }
        return (Int(likes), time, id)
    }

    static func top(_ likes: Int, _ createdAt: Int64, _ id: String) -> [CursorValue] { [.int(Int64(likes)), .int(createdAt), .string(id)] }

    /// `(tier, seq, windowStart)`: search results, best first (`SearchStore.Position`).
    static func search(_ values: [CursorValue]?) throws(CursorError) -> SearchStore.Position? {
        guard let values else { return nil }
        guard values.count == 3, case .int(let tier) = values[0], (0...2).contains(tier), case .int(let seq) = values[1],
              case .int(let windowStart) = values[2] else { throw .foreignShape }
        return SearchStore.Position(tier: Int(tier), seq: seq, windowStart: windowStart)
    }

    static func search(_ position: SearchStore.Position) -> [CursorValue] {
        [.int(Int64(position.tier)), .int(position.seq), .int(position.windowStart)]
    }
}
