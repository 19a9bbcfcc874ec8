import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#endif

/// Answers, once, the requests libmicrohttpd 0.9.75 would answer itself with two response heads.
///
/// Why: when MHD refuses a request while it parses the fields of a complete head (a
/// `Content-Length` that is not a number, `abc`, `-1`, `4, 4`, `0x4`; one too large for 64
/// bits; a `Cookie` its memory pool cannot copy), `parse_connection_headers` queues its error
/// page and builds its head, and the state machine then overwrites the state that said so
/// (`HEADERS_RECEIVED` -> `HEADERS_PROCESSED`, connection.c) and builds the head a second time
/// on `START_REPLY`: the client reads two status lines for one request, and a proxy that reuses
/// connections can pair the second with the next request. Our access handler is never called
/// for such a request (MHD already has a response), so nothing on the normal path can answer it.
///
/// What MHD does give us is its log line, written on the connection's own serving thread from
/// inside that parse (`Error processing request ...`, MHD_OPTION_EXTERNAL_LOGGER), before it
/// sends anything. The connection it is about is the one of this thread whose head MHD has
/// received (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE` answers only from `HEADERS_RECEIVED` on)
/// but that never reached our access handler (its record still waits for a head): a serving
/// thread handles one connection at a time, and a head received is handed to the handler in
/// the same pass unless MHD refused it. That connection gets our answer (the status API.md
/// names, the envelope, `Connection: close`) written on its socket, and the socket is shut
/// down: MHD's two heads, sent later, fail on it, and MHD closes the connection.
extension ServerCore {
    func answerRefusalBeforeMHD() {
        let thread = pthread_self()
        let answered = deadlines.connections.withLock { all -> [Int] in
            var statuses: [Int] = []
            for record in all.values where pthread_equal(record.owner, thread) != 0 {
                // Only this thread touches its connections, and we are on it: asking MHD about
                // them cannot race with MHD's own work on them.
                guard let connection = record.connection?.pointer, record.state.load(ordering: .acquiring) > 0,
                      ConnectionInfo.headReceived(connection), record.takeWaiting() else { continue }
                let refusal = Self.earlyRefusal(contentLength: Self.field(connection, "Content-Length"),
                                                chunked: Self.field(connection, "Transfer-Encoding") != nil)
                // Under the lock, like the deadlines' sweep: MHD cannot close the socket meanwhile.
                RawAnswer.send(RawAnswer.make(refusal), on: record.socket)
                _ = shutdown(record.socket, Int32(SHUT_RDWR))
                statuses.append(refusal.status)
            }
            return statuses
        }
        for status in answered {
            requestsRejected.increment()
            floodLog.warning(kind: "early refusal", "request refused before routing", ["status": String(status)])
        }
    }

    /// The answer to a head MHD refused while parsing its fields: a `Content-Length` MHD reads
    /// (none with a `Transfer-Encoding`) that is digits but past 64 bits is 413, one that is
    /// not digits 400 (API.md "Hostile input"); otherwise it was the `Cookie` field MHD had no
    /// memory to copy, 431.
    static func earlyRefusal(contentLength: String?, chunked: Bool) -> APIError {
        guard let value = contentLength, !chunked else {
            return APIError(status: 431, code: "bad_request", message: "Request headers are too large.")
        }
        let digits = value.trimmingASCIIWhitespace().utf8
        if !digits.isEmpty && digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return .payloadTooLarge()
        }
        return .badRequest("Malformed Content-Length.")
    }

    /// The first value of the request field `name` of `connection`, as MHD stored it.
    static func field(_ connection: OpaquePointer, _ name: String) -> String? {
        var value: UnsafePointer<CChar>?
        var length = 0
        guard MHD_lookup_connection_value_n(connection, .HEADER_KIND, name, name.utf8.count, &value, &length) == .YES,
              let value else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: value, count: length), as: UTF8.self)
    }
}
