import Community

/// A `GET /v1/changes` token: where the reader is in the change log, and since when its copy
/// holds only what it read (`origin`: the time it last started without a token), which
/// `ChangeHorizon.expired` needs to tell whether a purged tombstone could matter to it.
///
/// Made and checked by `CursorCodec` like every cursor (MACed, opaque), for a scope naming
/// this endpoint and the caller: what a page says depends on who reads it (a hidden video is
/// `upsert` to its owner and `delete` to others), so one caller's token is refused for
/// another (400 `invalid_cursor`).
struct ChangeToken: Sendable, Equatable {
    let position: ChangePosition
    let origin: Int64

    /// The scope a token is bound to: the endpoint and the caller (nobody, under
    /// `--public-read`).
    static func scope(callerID: String?) -> String { "changes|\(callerID ?? "")" }

    func encode(codec: CursorCodec, callerID: String?) -> String {
        codec.encode([.int(position.txid), .int(position.seq), .int(origin)], scope: Self.scope(callerID: callerID))
    }

    /// The token in `text`, if this server's key made it for this caller.
    /// - Throws: `CursorError` (400 `invalid_cursor`, field `since` at the route).
    static func decode(_ text: String, codec: CursorCodec, callerID: String?) throws(CursorError) -> ChangeToken {
        let values = try codec.decode(text, scope: scope(callerID: callerID))
        guard values.count == 3, case .int(let txid) = values[0], case .int(let seq) = values[1], case .int(let origin) = values[2],
              txid >= 0, seq >= 0 else { throw .foreignShape }
        return ChangeToken(position: ChangePosition(txid: txid, seq: seq), origin: origin)
    }
}
