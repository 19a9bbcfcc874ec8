/// What makes a streamed response's body, one part at a time, while the server sends it
/// (`Response.stream`): for bodies too large to hold in memory, such as a personal data export.
///
/// The server calls `next(into:)` on its blocking pool, never on a serving thread, one call at a
/// time (each after the previous part was handed to the socket), so a call may wait on the
/// database; keep each call bounded (one page of rows), as the connection's next part waits for
/// it. `finish(_:)` is called exactly once, when the response is over, however it ended; it runs
/// on whichever thread saw the end (a serving thread, say) and must not block.
public protocol ResponseStreamProducer: Sendable {
    /// Appends the next part of the body to `chunk`, which is empty on entry (it keeps the
    /// capacity of the previous part); answers whether more follows. An empty part with `true`
    /// is allowed (the next call comes at once). Throwing ends the response early: the
    /// connection is closed without the chunked body's last chunk, so the client sees an
    /// incomplete body, never a complete-looking one; the error is logged.
    mutating func next(into chunk: inout [UInt8]) throws -> Bool
    /// The end of the response (`ResponseStreamEnd`).
    mutating func finish(_ end: ResponseStreamEnd)
}

extension ResponseStreamProducer {
    public mutating func finish(_ end: ResponseStreamEnd) {}
}

/// How a streamed response ended.
public enum ResponseStreamEnd: Sendable {
    /// Every part was produced and handed to the socket.
    case completed
    /// The client left (closed or reset the connection) before the end, or the response was
    /// never sent (a HEAD request, the server stopping): no further part was produced.
    case abandoned
    /// `next(into:)` threw (or no pool thread would take the next part); the response was cut short.
    case failed(any Error)
}

/// A streamed body: the producer behind it (`Response.stream`).
public struct ResponseStream: Sendable {
    let producer: any ResponseStreamProducer

    public init(_ producer: some ResponseStreamProducer) {
        self.producer = producer
    }
}

extension Response {
    /// A response whose body `producer` makes while it is sent, with chunked transfer encoding
    /// (its length is not known up front). `headers` should carry its `Content-Type`.
    public static func streamed(_ status: Int = 200, headers: [(String, String)], _ producer: some ResponseStreamProducer) -> Response {
        var response = Response(status: status, headers: headers)
        response.stream = ResponseStream(producer)
        return response
    }
}
