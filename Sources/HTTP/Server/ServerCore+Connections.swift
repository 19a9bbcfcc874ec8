#if canImport(Glibc)
import Glibc
#endif

extension ServerCore {
    /// The head screen (RequestHeadScreen): runs when MHD has just accepted the connection and
    /// has not read from it yet. The listening socket uses TCP_DEFER_ACCEPT, so a connection
    /// normally reaches accept(2) with its first bytes already received; bytes that arrive
    /// later are not screened (a line MHD then swallows is cut off by the head deadline).
    func screenFirstBytes(of record: ConnectionRecord) {
        var peeked = [UInt8](repeating: 0, count: 2_048)
        let count = peeked.withUnsafeMutableBytes { recv(record.socket, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT)) }
        guard count > 0, let refusal = RequestHeadScreen.refusal(peeked[0..<count]) else { return }
        record.refuse()
        malformedHeads.increment()
        RawAnswer.send(RawAnswer.make(Self.malformedHead), on: record.socket)
        // MHD, on its first read, finds end-of-file and closes the connection through its usual path.
        _ = shutdown(record.socket, Int32(SHUT_RDWR))
        floodLog.warning(kind: "malformed head", "malformed request head refused", ["status": "400", "reason": refusal.rawValue])
    }

    /// Whether the client of `connection` has closed it (or reset it): the kernel has its FIN
    /// queued, or an error, with no byte left to read before it. A pipelined next request
    /// counts as the client still being there. One non-blocking `recv` with `MSG_PEEK`, which
    /// reads nothing away from libmicrohttpd (nginx asks the same way before it hands a
    /// request to its upstream, and answers 499 "client closed request").
    static func clientHasLeft(_ connection: OpaquePointer) -> Bool {
        let fd = ConnectionInfo.socket(of: connection)
        guard fd >= 0 else { return false }
        var byte: UInt8 = 0
        let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked == 0 { return true }
        return peeked < 0 && (errno == ECONNRESET || errno == ENOTCONN || errno == EPIPE)
    }

    /// The 400 written for a refused head: API.md promises the status and the close for what
    /// fails before a request exists; the envelope comes along since it costs nothing.
    static let malformedHead = APIError.badRequest("The request head is malformed.")
}
