import Foundation
import JSON

/// A tiny blocking HTTP/1.1 client over a raw socket, for live server tests.
/// (URLSession on Linux hides keep-alive and refuses hostile requests; we need both.)
final class RawHTTPClient {
    let fd: Int32

    struct Reply {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first(where: { $0.0.lowercased() == name.lowercased() })?.1
        }

        var json: JSONValue? { try? JSONValue.parse(body) }
        var errorCode: String? { json?["error"]?["code"]?.stringValue }
    }

    struct ClientError: Error, CustomStringConvertible {
        let description: String
    }

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw ClientError(description: "connect errno \(errno)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw ClientError(description: "write errno \(errno)") }
            offset += n
        }
    }

    var pending: [UInt8] = []

    private func fill() throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { throw ClientError(description: n == 0 ? "connection closed" : "read errno \(errno)") }
        pending += buffer[0..<n]
    }

    /// Reads one response (Content-Length framed, as the server always sends).
    func readReply(head: Bool = false) throws -> Reply {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            if let r = pending.firstRange(of: separator) { headerEnd = r.lowerBound } else { try fill() }
        }
        guard let end = headerEnd else { throw ClientError(description: "no header end") }
        let headText = String(decoding: pending[0..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError(description: "bad status line") }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var reply = Reply(status: status, headers: headers, body: [])
        if !head, reply.header("Transfer-Encoding")?.lowercased() == "chunked" {
            reply.body = try readChunkedBody()
            return reply
        }
        let length = head ? 0 : Int(reply.header("Content-Length") ?? "0") ?? 0
        while pending.count < length { try fill() }
        reply.body = Array(pending[0..<length])
        pending.removeFirst(length)
        return reply
    }

    /// A chunked body up to its last chunk (no trailers expected); throws "connection closed"
    /// when the connection ends first, as it does for a streamed response cut short.
    func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        let crlf: [UInt8] = [13, 10]
        while true {
            var lineEnd: Int?
            while lineEnd == nil {
                if let r = pending.firstRange(of: crlf) { lineEnd = r.lowerBound } else { try fill() }
            }
            let sizeText = String(decoding: pending[0..<lineEnd!], as: UTF8.self).split(separator: ";")[0]
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw ClientError(description: "bad chunk size \(sizeText)")
            }
            pending.removeFirst(lineEnd! + 2)
            while pending.count < size + 2 { try fill() }
            body += pending[0..<size]
            pending.removeFirst(size + 2)
            if size == 0 { return body }
        }
    }

    /// Reads whatever arrives until at least `count` bytes (head included) have come since the
    /// connection opened, for a client that stops reading part-way.
    func readRaw(atLeast count: Int) throws -> [UInt8] {
        while pending.count < count { try fill() }
        return pending
    }

    /// Sends one request and reads its reply.
    func request(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String] = []) throws -> Reply {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for h in headers { text += h + "\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        try send(Array(text.utf8) + (body ?? []))
        return try readReply(head: method == "HEAD")
    }

    /// True when the server has closed the connection (read returns 0).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return read(fd, &byte, 1) == 0
    }
}
