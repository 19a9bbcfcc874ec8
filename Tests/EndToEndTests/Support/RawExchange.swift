import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What came back for bytes sent as they are on a fresh connection, read until the server
/// closed it or the deadline passed: for requests the HTTP layer refuses before they are
/// requests (API.md: "the right status ... and the connection closed").
struct RawExchange: CustomStringConvertible {
    /// Everything received, as received.
    let received: [UInt8]
    /// True when the server closed the connection (EOF or reset) before the deadline.
    let closedByServer: Bool

    /// The status of the first response, if a status line arrived.
    var status: Int? {
        guard let end = received.firstRange(of: Array("\r\n".utf8))?.lowerBound else { return nil }
        let parts = String(decoding: received[..<end], as: UTF8.self).split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
        return Int(parts[1])
    }

    /// `error.code` of a JSON error envelope in the first response's body, if there is one.
    var errorCode: String? {
        guard let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound,
              let object = try? JSONSerialization.jsonObject(with: Data(received[end...])) as? [String: Any] else { return nil }
        return (object["error"] as? [String: Any])?["code"] as? String
    }

    /// The first value of the first response's header `name` (case-insensitive), if any.
    func header(_ name: String) -> String? {
        guard let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.lowerBound else { return nil }
        for line in String(decoding: received[..<end], as: UTF8.self).split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// How many response heads arrived: status lines (`HTTP/1.1 `) anywhere in what was read.
    /// One request must get exactly one (API.md), however it was refused.
    var statusLines: Int {
        let marker = Array("HTTP/1.1 ".utf8)
        var count = 0
        var rest = received[...]
        while let found = rest.firstRange(of: marker) {
            count += 1
            rest = rest[found.upperBound...]
        }
        return count
    }

    var description: String {
        let text = String(decoding: received.prefix(300), as: UTF8.self)
        return "\(closedByServer ? "closed" : "still open") after \(received.count) bytes: \(text.debugDescription)"
    }

    /// Connects to 127.0.0.1:`port`, sends `bytes` (as many as the server takes), and reads
    /// until EOF or `timeout` seconds. Throws only when the connection cannot be made.
    static func exchange(_ bytes: [UInt8], port: Int, timeout: Double = 5) throws -> RawExchange {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError.connectFailed(port: port, errno: errno) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw HTTPClientError.connectFailed(port: port, errno: errno) }
        let deadline = Date().addingTimeInterval(timeout)
        func setTimeout(_ seconds: Double) {
            let clamped = max(seconds, 0.01)
            var tv = timeval(tv_sec: Int(clamped), tv_usec: Int((clamped - Double(Int(clamped))) * 1_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        setTimeout(timeout)
        // The server may answer and close before taking everything: a failed send is no verdict.
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return RawExchange(received: received, closedByServer: false) }
            setTimeout(left)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += chunk[0..<n]; continue }
            if n == 0 { return RawExchange(received: received, closedByServer: true) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return RawExchange(received: received, closedByServer: false) }
            return RawExchange(received: received, closedByServer: true)  // ECONNRESET: closed, abruptly
        }
    }
}
