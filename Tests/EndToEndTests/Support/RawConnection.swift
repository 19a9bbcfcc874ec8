import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to the server that sends exactly the bytes it is given, optionally from a
/// chosen loopback source address (all of 127/8 is local on Linux), for tests of what happens
/// before a request exists: slow heads, garbage, connection floods.
final class RawConnection {
    /// What a read saw before its deadline.
    enum ReadOutcome: Equatable {
        case bytes([UInt8])
        /// The server closed the connection (end-of-file or reset).
        case closed
        case timedOut
    }

    let fd: Int32

    /// Connects to 127.0.0.1:`port` from `source` (port chosen by the kernel).
    init(port: Int, source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError.connectFailed(port: port, errno: errno) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port)).bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = bound == 0 ? withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } : -1
        guard connected == 0 else {
            let error = errno
            Glibc.close(fd)
            throw HTTPClientError.connectFailed(port: port, errno: error)
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends everything; false when the server has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Waits up to `timeout` seconds for bytes or a close.
    func read(timeout: Double) -> ReadOutcome {
        var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pollFD, 1, Int32(max(0, timeout) * 1_000))
        guard ready > 0 else { return .timedOut }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if n > 0 { return .bytes(Array(buffer[0..<n])) }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .timedOut }
        return .closed
    }

    /// Reads until the server closes the connection or `timeout` seconds pass; nil on timeout,
    /// else every byte received before the close.
    func readUntilClosed(timeout: Double) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        var received: [UInt8] = []
        while true {
            switch read(timeout: deadline.timeIntervalSinceNow) {
            case .bytes(let bytes): received += bytes
            case .closed: return received
            case .timedOut: return nil
            }
        }
    }

    /// The status code of an HTTP/1.1 status line at the start of `bytes`, if there is one.
    static func status(of bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes.prefix(32), as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
        return Int(parts[1])
    }
}
