import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A whole HTTP/1.1 response written straight on a socket, for the answers libmicrohttpd cannot
/// be asked to queue: the head screen's 400 (before MHD read anything), a late body's 408 (from
/// the sweeping thread, which may not call MHD_queue_response) and a malformed
/// `Content-Length`'s 400 (before MHD answers it twice, see `ContentLengthGuard`). Each is the
/// only answer on its connection, which is shut down right after it.
enum RawAnswer {
    /// The bytes of `error`'s envelope as a complete response with `Connection: close`.
    static func make(_ error: APIError, requestID: String = makeRequestID()) -> [UInt8] {
        var writer = JSONWriter()
        error.encode(to: &writer)
        let body = writer.bytes
        var head = "HTTP/1.1 \(error.status) \(reason(error.status))\r\nContent-Type: application/json; charset=utf-8\r\n"
            + "X-Content-Type-Options: nosniff\r\nX-Request-Id: \(requestID)\r\n"
        for (name, value) in error.headers { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\nContent-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Reads what is waiting on `socket` (within reason), then writes `answer`, without blocking.
    /// The reading is so that the close that follows sends FIN rather than RST: unread bytes at
    /// close make Linux reset the connection, and a reset can destroy the answer before the
    /// client reads it.
    static func send(_ answer: [UInt8], on socket: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4_096)
        var drained = 0
        while drained < 65_536 {
            let n = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard n > 0 else { break }
            drained += n
        }
        _ = answer.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 431: "Request Header Fields Too Large"
        default: "Error"
        }
    }
}
