import XCTest

/// Whatever goes wrong, a client gets the JSON envelope it can show, never an HTML page or a hang.
final class ErrorEnvelopeTests: ServerTestCase {
    private var signupBody: [String: Any] {
        let name = Fake.username()
        return ["username": name, "email": Fake.email(for: name), "password": Fake.password()]
    }

    func testUnknownPathIsNotFound() throws {
        let account = try client.signup()
        assertError(try client.request("GET", "/v1/no-such-thing", token: account.token), 404, "not_found")
        assertError(try client.request("GET", "/nope"), 404, "not_found")
        assertError(try client.request("POST", "/v1/users/me/nothing/here", json: [:], token: account.token), 404, "not_found")
    }

    func testKnownPathWithWrongMethodIsMethodNotAllowed() throws {
        let account = try client.signup()
        assertError(try client.request("GET", "/v1/sessions", token: account.token), 405, "method_not_allowed", "GET /v1/sessions")
        assertError(try client.request("PUT", "/v1/users/me", json: [:], token: account.token), 405, "method_not_allowed", "PUT /v1/users/me")
        assertError(try client.request("DELETE", "/healthz"), 405, "method_not_allowed", "DELETE /healthz")
        assertError(try client.request("BREW", "/v1/users", token: account.token), 405, "method_not_allowed", "BREW /v1/users")
    }

    func testMalformedJSONIsBadRequest() throws {
        for (label, body) in [
            ("truncated", #"{"username": "abc""#),
            ("trailing comma", #"{"username": "abc",}"#),
            ("not JSON", "username=abc&password=x"),
            ("two documents", #"{} {}"#),
        ] {
            let result = try client.request("POST", "/v1/users", body: Data(body.utf8))
            assertError(result, 400, "bad_request", label)
        }
    }

    /// API.md: a JSON object with the same key twice is 400 `bad_request`, at any depth and
    /// however the key is spelled, so a proxy that reads the first value never sees another
    /// request than the server does.
    func testADuplicateKeyAtAnyDepthIsBadRequest() throws {
        let name = Fake.username(), email = Fake.email(for: Fake.username()), password = Fake.password()
        for (label, body) in [
            ("username twice", #"{"username":"\#(name)","email":"\#(email)","password":"\#(password)","username":"\#(name)x"}"#),
            ("the second spelled with an escape", #"{"username":"\#(name)","email":"\#(email)","password":"\#(password)","user\u006eame":"\#(name)x"}"#),
            ("inside an ignored member", #"{"username":"\#(name)","email":"\#(email)","password":"\#(password)","extra":[{"a":1,"a":2}]}"#),
        ] {
            assertError(try client.request("POST", "/v1/users", body: Data(body.utf8)), 400, "bad_request", label)
        }
        let once = #"{"username":"\#(name)","email":"\#(email)","password":"\#(password)","extra":[{"a":1},{"a":2}]}"#
        XCTAssertEqual(try client.request("POST", "/v1/users", body: Data(once.utf8)).status, 201, "the same key in two objects is no duplicate")
    }

    func testEmptyBodyIsRefusedWithEnvelope() throws {
        let result = try client.request("POST", "/v1/users", body: Data())
        XCTAssertEqual(result.status, 400, "\(result)")
        assertEnvelope(result)
    }

    func testLoneSurrogateEscapeIsBadRequest() throws {
        let body = #"{"username":"\ud800","email":"x@example.com","password":"Pw-long-enough-1"}"#
        assertError(try client.request("POST", "/v1/users", body: Data(body.utf8)), 400, "bad_request")
        let lowAlone = #"{"login":"\udc00abc","password":"Pw-long-enough-1"}"#
        assertError(try client.request("POST", "/v1/sessions", body: Data(lowAlone.utf8)), 400, "bad_request")
    }

    func testInvalidUTF8IsBadRequest() throws {
        var body = Data(#"{"username":"ab"#.utf8)
        body.append(contentsOf: [0xC3, 0x28, 0xFF])  // an unfinished sequence, then a byte that never occurs in UTF-8
        body.append(contentsOf: Data(#"c","email":"x@example.com","password":"Pw-long-enough-1"}"#.utf8))
        assertError(try client.request("POST", "/v1/users", body: body), 400, "bad_request")
    }

    func testNestingDeeperThan64IsRefusedAndDeepNestingDoesNotCrash() throws {
        let deep65 = #"{"username":"# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
        let result = try client.request("POST", "/v1/users", body: Data(deep65.utf8))
        XCTAssertEqual(result.status, 400, "65 levels of nesting: \(result)")
        assertEnvelope(result)

        // 60,000 levels fit in 64 KiB; a recursive parser without a limit would overflow its stack.
        let hostile = String(repeating: "[", count: 60_000)
        assertError(try client.request("POST", "/v1/users", body: Data(hostile.utf8)), 400, "bad_request", "60,000 open brackets")
        XCTAssertEqual(try newClient().request("GET", "/healthz").status, 200, "the server survives deep nesting")
    }

    func testBodyOverLimitIsPayloadTooLarge() throws {
        var body = signupBody
        // Exactly 65,536 bytes is allowed; one more byte is not.
        let base = try JSONSerialization.data(withJSONObject: body.merging(["padding": ""]) { $1 })
        body["padding"] = String(repeating: "x", count: 65_536 - base.count)
        let atLimit = try JSONSerialization.data(withJSONObject: body)
        XCTAssertEqual(atLimit.count, 65_536)
        let accepted = try client.request("POST", "/v1/users", body: atLimit)
        XCTAssertNotEqual(accepted.status, 413, "a body of exactly 65,536 bytes is within the limit: \(accepted)")
        XCTAssertEqual(accepted.status, 201, "unknown fields are ignored, so this signup succeeds: \(accepted)")

        var over = signupBody
        over["padding"] = String(repeating: "x", count: 65_537 - base.count)
        let overData = try JSONSerialization.data(withJSONObject: over)
        XCTAssertEqual(overData.count, 65_537)
        assertError(try newClient().request("POST", "/v1/users", body: overData), 413, "payload_too_large")
    }

    func testDeclaredHugeBodyIsRefusedWithoutWaitingForIt() throws {
        let head = "POST /v1/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{\"username\":"
        let started = Date()
        guard let result = client.sendRaw(Array(head.utf8), timeout: 5) else {
            return XCTFail("no answer within 5 s (timeout or connection closed) to a request declaring a 10,000,000-byte body (the server waited for it)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        assertError(result, 413, "payload_too_large")
    }

    /// API.md: what the HTTP layer rejects before a request exists gets the right status and
    /// the connection closed (a JSON body is not promised there).
    private func assertRefusedAndClosed(_ raw: String, _ status: Int, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let exchange = try RawExchange.exchange(Array(raw.utf8), port: server.port, timeout: 5)
        XCTAssertEqual(exchange.status, status, "\(context): \(exchange)", file: file, line: line)
        XCTAssertTrue(exchange.closedByServer, "\(context): the server closes the connection within 5 s: \(exchange)", file: file, line: line)
    }

    func testMalformedContentLengthIsBadRequestAndCloses() throws {
        for length in ["abc", "-1", "5, 6", "1e3"] {
            let raw = "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n{\"a\":1}"
            try assertRefusedAndClosed(raw, 400, "Content-Length: \(length)")
        }
        let conflicting = "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 7\r\nContent-Length: 9\r\n\r\n{\"a\":1}"
        try assertRefusedAndClosed(conflicting, 400, "two different Content-Length headers")
    }

    func testMalformedRequestLinesAndFramingAre400AndClose() throws {
        for (label, raw) in [
            ("a request line without a version", "GET /healthz\r\n\r\n"),
            ("a request line with a fourth part", "GET /healthz HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n"),
            ("an unknown version", "GET /healthz HTTP/x.y\r\nHost: 127.0.0.1\r\n\r\n"),
            ("a header line without a colon", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nNoColonHere\r\n\r\n"),
            ("a chunk size that is not hex", "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
            ("a request line without a target", "GET\r\n\r\n"),
            ("Content-Length beside Transfer-Encoding", "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ] {
            try assertRefusedAndClosed(raw, 400, label)
        }
    }

    func testDeclaredHugeBodyIs413AndCloses() throws {
        let head = "POST /v1/users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{\"username\":"
        try assertRefusedAndClosed(head, 413, "a declared body of 10,000,000 bytes")
    }

    func testOversizedHeadersAndURLAreRefusedAndClose() throws {
        let padding = String(repeating: "a", count: 20 * 1024)
        try assertRefusedAndClosed("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(padding)\r\n\r\n", 431, "20 KiB of headers")
        let manyHeaders = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + (0..<400).map { "X-H\($0): \(String(repeating: "b", count: 48))\r\n" }.joined() + "\r\n"
        try assertRefusedAndClosed(manyHeaders, 431, "400 headers of 50 bytes (20 KiB)")
        try assertRefusedAndClosed("GET /v1/users/\(padding) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414, "a 20 KiB request line")
        XCTAssertEqual(try newClient().request("GET", "/healthz").status, 200, "the server still serves")
    }

    func testMissingAndBogusTokens() throws {
        assertError(try client.request("GET", "/v1/users/me"), 401, "unauthorized", "no Authorization header")
        assertError(try client.request("GET", "/v1/users/me", token: "bogus-\(UUID().uuidString)"), 401, "invalid_session", "bogus token")
        let account = try client.signup()
        var tampered = account.token
        let last = tampered.removeLast()
        tampered.append(last == "A" ? "B" : "A")
        assertError(try client.request("GET", "/v1/users/me", token: tampered), 401, "invalid_session", "token with one character changed")
    }

    func testErrorsCarryRequestIdsThatDiffer() throws {
        let first = try client.request("GET", "/nope")
        let second = try client.request("GET", "/nope")
        assertEnvelope(first)
        assertEnvelope(second)
        XCTAssertNotEqual(first.headers["x-request-id"], second.headers["x-request-id"], "each request gets its own id")
    }

    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        for _ in 0..<5 {
            XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
            assertError(try client.request("GET", "/v1/users/me"), 401, "unauthorized")
        }
    }
}
