import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Response headers, looked up case-insensitively.
struct HTTPHeaders: CustomStringConvertible {
    let fields: [(name: String, value: String)]

    subscript(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }
}

/// One HTTP response as a client sees it.
struct HTTPResult: CustomStringConvertible {
    let status: Int
    let headers: HTTPHeaders
    let body: Data
    /// The body parsed with JSONSerialization (fragments allowed); nil when empty or not JSON.
    let json: Any?

    var object: [String: Any]? { json as? [String: Any] }
    var text: String { String(decoding: body, as: UTF8.self) }
    var error: [String: Any]? { object?["error"] as? [String: Any] }
    var errorCode: String? { error?["code"] as? String }
    var errorField: String? { error?["field"] as? String }
    var errorMessage: String? { error?["message"] as? String }

    var description: String {
        let shown = body.count > 600 ? String(decoding: body.prefix(600), as: UTF8.self) + "…(\(body.count) bytes)" : text
        return "HTTP \(status) \(headers["content-type"] ?? "(no content-type)") \(shown)"
    }
}

enum HTTPClientError: Error, CustomStringConvertible {
    case connectFailed(port: Int, errno: Int32)
    case sendFailed(errno: Int32)
    case timedOut(request: String, seconds: Double)
    case connectionClosed(request: String, received: Int)
    case malformedResponse(request: String, detail: String)

    var description: String {
        switch self {
        case .connectFailed(let port, let errno):
            return "connect to 127.0.0.1:\(port) failed: \(String(cString: strerror(errno)))"
        case .sendFailed(let errno):
            return "send failed: \(String(cString: strerror(errno)))"
        case .timedOut(let request, let seconds):
            return "\(request): no complete response within \(seconds) s"
        case .connectionClosed(let request, let received):
            return "\(request): the server closed the connection after \(received) bytes of response"
        case .malformedResponse(let request, let detail):
            return "\(request): malformed HTTP response: \(detail)"
        }
    }
}

/// A small HTTP/1.1 client on a raw socket: keep-alive, Content-Length and chunked bodies, and a
/// receive timeout so a test never hangs on a server that does not answer.
///
/// Every JSON body it receives goes through `ResponseAudit` (no key naming a password or hash,
/// session tokens remembered as secrets). Not thread-safe: one client per thread.
final class HTTPClient {
    let port: Int
    /// Seconds a single receive may block before the request fails.
    var timeout: Double
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []

    init(port: Int, timeout: Double = 15) {
        self.port = port
        self.timeout = timeout
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        buffer.removeAll()
    }

    // MARK: Requests

    /// Sends one request and reads its response. `json` is serialized with JSONSerialization and wins
    /// over `body`; `token` becomes `Authorization: Bearer <token>`; `headers` override the defaults.
    func request(
        _ method: String, _ path: String, headers: [String: String] = [:],
        body: Data? = nil, json: Any? = nil, token: String? = nil
    ) throws -> HTTPResult {
        var payload = body
        if let json {
            payload = try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])
            ResponseAudit.shared.rememberRequestSecrets(json)
        }
        var fields: [(String, String)] = [("Host", "127.0.0.1:\(port)")]
        if let payload {
            fields.append(("Content-Length", "\(payload.count)"))
            fields.append(("Content-Type", "application/json"))
        } else if ["POST", "PUT", "PATCH"].contains(method) {
            fields.append(("Content-Length", "0"))
        }
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        for (name, value) in headers {
            fields.removeAll { $0.0.lowercased() == name.lowercased() }
            fields.append((name, value))
        }
        var bytes = Array("\(method) \(path) HTTP/1.1\r\n".utf8)
        for (name, value) in fields { bytes += Array("\(name): \(value)\r\n".utf8) }
        bytes += Array("\r\n".utf8)
        if let payload { bytes += Array(payload) }

        let label = "\(method) \(path.prefix(120))"
        let reused = fd >= 0
        do {
            return try exchange(bytes, method: method, label: label, deadlinePerRead: timeout)
        } catch HTTPClientError.connectionClosed(_, let received) where reused && received == 0 {
            // The server closed an idle keep-alive connection: retry once on a fresh one.
            close()
            return try exchange(bytes, method: method, label: label, deadlinePerRead: timeout)
        }
    }

    /// Sends `bytes` as they are on a fresh connection and returns the first response that arrives
    /// within `timeout` seconds, or nil (timeout, or the connection closed without a full response).
    /// For hostile requests: invalid request lines, lying `Content-Length`, huge headers.
    func sendRaw(_ bytes: [UInt8], timeout: Double = 5) -> HTTPResult? {
        let raw = HTTPClient(port: port, timeout: timeout)
        defer { raw.close() }
        let label = "raw request"
        do {
            try raw.connect()
            let deadline = Date().addingTimeInterval(timeout)
            raw.sendAll(bytes)  // The server may answer and close before reading everything.
            return try raw.readResponse(method: "RAW", label: label, deadline: deadline)
        } catch {
            return nil
        }
    }

    // MARK: Socket

    private func exchange(_ bytes: [UInt8], method: String, label: String, deadlinePerRead: Double) throws -> HTTPResult {
        if fd < 0 { try connect() }
        // A failed send is not fatal by itself: the server may have answered (413) and closed early.
        sendAll(bytes)
        do {
            return try readResponse(method: method, label: label, deadline: nil)
        } catch {
            close()
            throw error
        }
    }

    private func connect() throws {
        close()
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw HTTPClientError.connectFailed(port: port, errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(socketFD)
            throw HTTPClientError.connectFailed(port: port, errno: error)
        }
        var one: Int32 = 1
        setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        fd = socketFD
        setTimeout(timeout)
    }

    private func setTimeout(_ seconds: Double) {
        let clamped = max(seconds, 0.01)
        var tv = timeval(tv_sec: Int(clamped), tv_usec: Int((clamped - Double(Int(clamped))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends everything it can; returns nil on success, else the errno that stopped it.
    @discardableResult
    private func sendAll(_ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    /// Reads more bytes into `buffer`. Returns false on EOF; throws on timeout.
    private func receiveMore(label: String, deadline: Date?) throws -> Bool {
        if let deadline {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { throw HTTPClientError.timedOut(request: label, seconds: timeout) }
            setTimeout(left)
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTPClientError.timedOut(request: label, seconds: timeout) }
            return false  // ECONNRESET and friends: treat as a closed connection.
        }
    }

    private func readResponse(method: String, label: String, deadline: Date?) throws -> HTTPResult {
        var received = 0
        func need(_ condition: () -> Bool) throws {
            while !condition() {
                guard try receiveMore(label: label, deadline: deadline) else {
                    throw HTTPClientError.connectionClosed(request: label, received: received + buffer.count)
                }
            }
        }
        while true {
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            var headerEnd: Int?
            try need {
                headerEnd = buffer.firstRange(of: separator)?.lowerBound
                return headerEnd != nil
            }
            let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
            buffer.removeSubrange(..<(headerEnd! + 4))
            received += head.utf8.count + 4
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst()
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw HTTPClientError.malformedResponse(request: label, detail: "status line \(statusLine.debugDescription)")
            }
            var fields: [(name: String, value: String)] = []
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else {
                    throw HTTPClientError.malformedResponse(request: label, detail: "header line \(line.debugDescription)")
                }
                fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            let headers = HTTPHeaders(fields: fields)
            if (100...199).contains(status) { continue }  // 100 Continue and friends: the real answer follows.

            var body: [UInt8] = []
            var closeAfter = headers["connection"]?.lowercased().contains("close") ?? false
            if method == "HEAD" || status == 204 || status == 304 {
                // No body.
            } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                while true {
                    var lineEnd: Int?
                    try need {
                        lineEnd = buffer.firstRange(of: Array("\r\n".utf8))?.lowerBound
                        return lineEnd != nil
                    }
                    let sizeText = String(decoding: buffer[..<lineEnd!], as: UTF8.self)
                        .split(separator: ";").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
                    guard let size = Int(sizeText, radix: 16) else {
                        throw HTTPClientError.malformedResponse(request: label, detail: "chunk size \(sizeText.debugDescription)")
                    }
                    buffer.removeSubrange(..<(lineEnd! + 2))
                    if size == 0 {
                        // Trailers, then an empty line.
                        while true {
                            var end: Int?
                            try need {
                                end = buffer.firstRange(of: Array("\r\n".utf8))?.lowerBound
                                return end != nil
                            }
                            buffer.removeSubrange(..<(end! + 2))
                            if end == 0 { break }
                        }
                        break
                    }
                    try need { buffer.count >= size + 2 }
                    body += buffer[..<size]
                    buffer.removeSubrange(..<(size + 2))
                }
            } else if let lengthText = headers["content-length"] {
                guard let length = Int(lengthText.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                    throw HTTPClientError.malformedResponse(request: label, detail: "Content-Length \(lengthText.debugDescription)")
                }
                try need { buffer.count >= length }
                body = Array(buffer[..<length])
                buffer.removeSubrange(..<length)
            } else {
                // Neither: the body runs to the end of the connection.
                while try receiveMore(label: label, deadline: deadline) {}
                body = buffer
                buffer.removeAll()
                closeAfter = true
            }
            if closeAfter { close() }

            let data = Data(body)
            var json: Any?
            if !data.isEmpty {
                json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            }
            let result = HTTPResult(status: status, headers: headers, body: data, json: json)
            ResponseAudit.shared.inspect(result, request: label)
            return result
        }
    }
}
