import Foundation
import TestSupport
import XCTest

/// A request head that cannot be parsed is answered or closed at once (API.md: what the HTTP
/// layer rejects before a request exists).
final class MalformedHeadTests: ServerTestCase {
    func testBinaryGarbageRequestLineIsAnsweredAtOnce() throws {
        let connection = try RawConnection(port: server.port)
        XCTAssertTrue(connection.send([0x00, 0x01, 0x02] + Array(" nonsense ".utf8) + [0xFF] + Array("\r\n\r\n".utf8)))
        // The failure condition is the read timeout: the server used to stay silent until its
        // 30-second idle timeout.
        guard let answer = connection.readUntilClosed(timeout: 3) else {
            return XCTFail("no answer and no close within 3 s for a request line of binary garbage")
        }
        XCTAssertEqual(RawConnection.status(of: answer), 400, "answered 400, then closed: \(String(decoding: answer, as: UTF8.self))")
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200, "the server goes on serving")
    }

    func testNULInAHeaderIsRefusedButNotInABody() throws {
        let header = try RawConnection(port: server.port)
        XCTAssertTrue(header.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n"))
        let refused = try XCTUnwrap(header.readUntilClosed(timeout: 3), "no answer and no close within 3 s for a NUL in a header")
        XCTAssertEqual(RawConnection.status(of: refused), 400)

        // A body may hold any byte: it is the JSON parser's to refuse, with the envelope.
        let body: [UInt8] = Array(#"{"login":"a"#.utf8) + [0] + Array(#"","password":"b"}"#.utf8)
        let result = try client.request("POST", "/v1/sessions", body: Data(body))
        XCTAssertEqual(result.status, 400, "\(result)")
        XCTAssertNotNil(result.headers["x-request-id"], "a body with a NUL reaches the application, which answers: \(result)")
    }
}

/// One address cannot take the server: connections per address are limited, and a flood of
/// refused connections writes a bounded number of log lines.
final class ConnectionFloodTests: ServerTestCase {
    static let perAddress = 8
    // A long head deadline, so that only the per-address limit closes connections here.
    override class var serverArguments: [String] { ["--max-connections-per-ip", "\(perAddress)", "--header-timeout", "120s"] }

    func testOneAddressCannotTakeTheServer() throws {
        let flood = try (0..<20).map { _ in try RawConnection(port: server.port) }
        // Heads that never finish. (The listening socket defers accept until bytes arrive.)
        for connection in flood { connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ") }

        // Exactly the connections beyond the limit are closed by the server.
        let deadline = Date().addingTimeInterval(10)
        var closed = Set<Int>()
        while closed.count < flood.count - Self.perAddress && Date() < deadline {
            for (index, connection) in flood.enumerated() where !closed.contains(index) {
                if connection.read(timeout: 0.05) == .closed { closed.insert(index) }
            }
        }
        XCTAssertEqual(closed.count, flood.count - Self.perAddress, "connections beyond \(Self.perAddress) from one address are closed")
        for (index, connection) in flood.enumerated() where !closed.contains(index) {
            XCTAssertEqual(connection.read(timeout: 0), .timedOut, "connection \(index), within the limit, stays open")
        }

        // One more from the flooding address, even a complete request, is refused.
        let extra = try RawConnection(port: server.port)
        extra.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let extraAnswer = try XCTUnwrap(extra.readUntilClosed(timeout: 5), "a connection beyond the limit is closed within 5 s")
        XCTAssertNil(RawConnection.status(of: extraAnswer), "refused without an answer")

        // Another address gets in and is served.
        let other = try RawConnection(port: server.port, source: "127.0.0.2")
        other.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = try XCTUnwrap(other.readUntilClosed(timeout: 5), "/healthz from 127.0.0.2 answers within 5 s during the flood")
        XCTAssertEqual(RawConnection.status(of: answer), 200, String(decoding: answer, as: UTF8.self))

        // The refusals were logged, but not one line each.
        let refusals = flood.count - Self.perAddress + 1
        let logged = waitForLogLines(containing: "connection limit", atLeast: 1)
        XCTAssertGreaterThanOrEqual(logged, 1, "the refusals are logged")
        XCTAssertLessThanOrEqual(logged, 4, "\(refusals) refusals within a few seconds write at most one line per second")

        // Once the flood ends, its address is served again.
        flood.forEach { _ = shutdown($0.fd, Int32(SHUT_RDWR)) }
        var status: Int?
        _ = try waitUntil(timeout: 10, interval: 0.1) {
            let again = try RawConnection(port: server.port)
            again.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            status = again.readUntilClosed(timeout: 2).flatMap(RawConnection.status(of:))
            return status == 200
        }
        XCTAssertEqual(status, 200, "127.0.0.1 is served again once its connections are gone")
    }
}

extension ServerTestCase {
    /// Lines of the server's log holding `text`, once at least `atLeast` arrived (or after 5 s).
    fileprivate func waitForLogLines(containing text: String, atLeast: Int) -> Int {
        var count = 0
        _ = waitUntil(timeout: 5) {
            count = server.stderrLines.filter { $0.contains(text) }.count
            return count >= atLeast
        }
        return count
    }
}

/// The whole request head has a deadline, however steadily its bytes trickle in.
final class HeaderDeadlineTests: ServerTestCase {
    override class var serverArguments: [String] { ["--header-timeout", "2s"] }

    func testATricklingHeadIsCutOffAfterTheDeadline() throws {
        let connection = try RawConnection(port: server.port)
        let head = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: \(String(repeating: "a", count: 40))\r\n\r\n".utf8)
        // One byte every 0.5 s: never idle long enough for the 30-second idle timeout. The head
        // would take about 40 s; the failure condition is reaching its end (or 20 bytes past the
        // 2-second deadline) without the server closing the connection.
        var cutOff = false
        for (index, byte) in head.enumerated() {
            if !connection.send([byte]) { cutOff = true; break }
            switch connection.read(timeout: 0.5) {
            case .closed: cutOff = true
            case .bytes(let bytes): return XCTFail("the server answered an unfinished head: \(String(decoding: bytes, as: UTF8.self))")
            case .timedOut: break
            }
            if cutOff || index > 24 { break }
        }
        XCTAssertTrue(cutOff, "a head trickling in one byte every 0.5 s is closed after --header-timeout 2s")
        XCTAssertEqual(waitForLogLines(containing: "request head not complete in time", atLeast: 1), 1, "the cut-off is logged once")
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200, "a prompt client is served")
    }
}
