import Foundation
import XCTest

/// Framing a proxy in front could read differently from us (RFC 9112, issue 27): each is refused
/// with the status API.md names, the JSON envelope, and the connection closed, so no byte after
/// it is ever read as another request.
final class RequestFramingTests: ServerTestCase {
    private func assertRefused(
        _ raw: String, _ status: Int, _ context: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let exchange = try RawExchange.exchange(Array(raw.utf8), port: server.port, timeout: 3)
        XCTAssertEqual(exchange.status, status, "\(context): \(exchange)", file: file, line: line)
        XCTAssertEqual(exchange.errorCode, "bad_request", "\(context): the JSON envelope: \(exchange)", file: file, line: line)
        XCTAssertTrue(exchange.closedByServer, "\(context): the server closes the connection: \(exchange)", file: file, line: line)
    }

    func testAFoldedTransferEncodingIs400AndCloses() throws {
        try assertRefused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding:\r\n chunked\r\n\r\n", 400,
                          "Transfer-Encoding folded onto a continuation line")
    }

    func testObsFoldAnywhereInTheHeadIs400AndCloses() throws {
        try assertRefused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: one\r\n\ttwo\r\n\r\n", 400, "a line starting with HTAB")
        try assertRefused("GET /healthz HTTP/1.1\r\n Host: 127.0.0.1\r\n\r\n", 400, "the first field line starting with SP")
    }

    func testWhitespaceBeforeAColonIs400AndCloses() throws {
        try assertRefused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding : chunked\r\n\r\n", 400,
                          "Transfer-Encoding with a space before its colon")
        try assertRefused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note\t: one\r\n\r\n", 400, "a tab before a colon")
    }

    func testABareCRInAFieldValueIs400AndCloses() throws {
        // libmicrohttpd 0.9.75 ends a line at a bare CR: it would read two fields where a proxy may read one.
        try assertRefused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\rX-B: b\r\n\r\n", 400, "a bare CR in a value")
    }

    func testAMissingHostIs400AndClosesOnHTTP11Only() throws {
        try assertRefused("GET /healthz HTTP/1.1\r\n\r\n", 400, "HTTP/1.1 without Host")
        let old = try RawExchange.exchange(Array("GET /healthz HTTP/1.0\r\n\r\n".utf8), port: server.port, timeout: 3)
        XCTAssertEqual(old.status, 200, "HTTP/1.0 needs no Host: \(old)")
    }

    func testTwoHostFieldsAre400AndClose() throws {
        try assertRefused("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: example.com\r\n\r\n", 400, "two Host fields")
    }

    func testAnUnknownTransferCodingIs501AndCloses() throws {
        for coding in ["gzip, chunked", "foo"] {
            try assertRefused("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                              + "Transfer-Encoding: \(coding)\r\n\r\n0\r\n\r\n", 501, "Transfer-Encoding: \(coding)")
        }
    }

    /// The checks made on the parsed head hold for every request of a kept-alive connection,
    /// not only for the first bytes the connection brought.
    func testAKeptAliveConnectionsLaterRequestIsCheckedToo() throws {
        let connection = try RawConnection(port: server.port)
        XCTAssertTrue(connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        guard case .bytes(let first) = connection.read(timeout: 3) else { return XCTFail("no answer to a plain GET /healthz") }
        XCTAssertEqual(RawConnection.status(of: first), 200)
        XCTAssertTrue(connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"))
        let second = try XCTUnwrap(connection.readUntilClosed(timeout: 3), "no answer and no close for two Host fields on a kept-alive connection")
        XCTAssertEqual(RawConnection.status(of: second), 400, String(decoding: second, as: UTF8.self))
    }

    /// Every request gets exactly one response head (API.md), also one refused for its
    /// `Content-Length`: libmicrohttpd 0.9.75 answered these itself with its head twice, and a
    /// proxy reusing the connection could pair the second with the next request. A pipelined
    /// request after it is never answered: the connection is closed.
    func testAMalformedContentLengthGetsExactlyOneResponseHead() throws {
        for value in ["abc", "-1", "4, 4", "0x4"] {
            let raw = "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(value)\r\n\r\n"
                + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let exchange = try RawExchange.exchange(Array(raw.utf8), port: server.port, timeout: 3)
            XCTAssertEqual(exchange.statusLines, 1, "Content-Length: \(value): one response head: \(exchange)")
            XCTAssertEqual(exchange.status, 400, "Content-Length: \(value): \(exchange)")
            XCTAssertEqual(exchange.errorCode, "bad_request", "Content-Length: \(value): the envelope: \(exchange)")
            XCTAssertTrue(exchange.closedByServer, "Content-Length: \(value): closed: \(exchange)")
        }
        // Past 64 bits it is a declared body over the limit: 413, once.
        let huge = try RawExchange.exchange(Array("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8),
                                            port: server.port, timeout: 3)
        XCTAssertEqual(huge.statusLines, 1, "\(huge)")
        XCTAssertEqual(huge.status, 413, "\(huge)")
    }

    /// The same on a kept-alive connection's later request (which no first-bytes screen sees).
    func testAMalformedContentLengthOnAKeptAliveConnectionGetsOneResponseHead() throws {
        let connection = try RawConnection(port: server.port)
        XCTAssertTrue(connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        guard case .bytes(let first) = connection.read(timeout: 3) else { return XCTFail("no answer to a plain GET /healthz") }
        XCTAssertEqual(RawConnection.status(of: first), 200)
        XCTAssertTrue(connection.send("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0x4\r\n\r\nGET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        let rest = RawExchange(received: try XCTUnwrap(connection.readUntilClosed(timeout: 3), "no close after a malformed Content-Length"),
                               closedByServer: true)
        XCTAssertEqual(rest.statusLines, 1, "\(rest)")
        XCTAssertEqual(rest.status, 400, "\(rest)")
    }

    func testChunkedBodiesAndPlainRequestsStillWork() throws {
        let body = #"{"login":"nobody-here","password":"not-the-password"}"#
        let chunked = "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            + "Connection: close\r\n\r\n" + String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
        let exchange = try RawExchange.exchange(Array(chunked.utf8), port: server.port, timeout: 5)
        XCTAssertEqual(exchange.status, 401, "a chunked login for an unknown name reaches the application: \(exchange)")
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
    }
}
