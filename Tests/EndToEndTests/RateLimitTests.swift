import Foundation
import TestSupport
import XCTest

/// API.md "Limits on abuse": each limit answers 429 `rate_limited` with `Retry-After` at its
/// threshold, and lets the client through again once that time has passed. Small windows
/// (3 a second) keep the waits short; every other limit is off (`TestServer.limitsOff`).
final class RateLimitTests: XCTestCase {
    /// Kept for the test's length: a released `TestServer` kills its process.
    private var servers: [TestServer] = []

    override func tearDown() {
        servers.removeAll()
        super.tearDown()
    }

    private func server(_ flags: [String]) throws -> (TestServer, HTTPClient) {
        let server = try TestServer(extraArguments: flags)
        try server.start()
        servers.append(server)
        return (server, HTTPClient(port: server.port))
    }

    /// Asserts the refusal and waits out its Retry-After (at most 5 s).
    private func assertLimited(_ result: HTTPResult, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        assertError(result, 429, "rate_limited", context, file: file, line: line)
        let seconds = Int(result.headers["retry-after"] ?? "") ?? -1
        XCTAssertTrue((1...5).contains(seconds), "\(context): Retry-After is whole seconds, got \(result.headers["retry-after"] ?? "none")", file: file, line: line)
        Thread.sleep(forTimeInterval: Double(max(0, min(seconds, 5))))
    }

    private func signupBody() -> [String: Any] {
        let username = Fake.username()
        return ["username": username, "email": Fake.email(for: username), "password": Fake.password()]
    }

    func testSignupsPerAddress() throws {
        let (server, client) = try server(["--limit-signups", "3/s"])
        for _ in 0..<3 { assertSuccess(try client.request("POST", "/v1/users", json: signupBody()), 201) }
        assertLimited(try client.request("POST", "/v1/users", json: signupBody()), "the fourth sign-up in a second")
        assertSuccess(try client.request("POST", "/v1/users", json: signupBody()), 201, "after Retry-After")
        XCTAssertTrue(try client.request("GET", "/metrics").text.contains("pacenote_rate_limited_total{limit=\"signups\"} 1"),
                      "refusals are counted by limit")
        XCTAssertTrue(server.isRunning)
    }

    func testLoginsPerAddressWhateverTheNames() throws {
        let (_, client) = try server(["--limit-logins", "3/s"])
        let account = try client.signup()
        assertError(try client.request("POST", "/v1/sessions", json: ["login": "someone", "password": Fake.password()]), 401, "invalid_credentials")
        _ = try client.login(account.username, account.password)
        _ = try client.login(account.email, account.password)
        assertLimited(try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": account.password]),
                      "the fourth login in a second, right password or not")
        _ = try client.login(account.username, account.password)
    }

    func testWritesPerUser() throws {
        let (_, client) = try server(["--limit-writes", "3/s"])
        let writer = try client.signup()
        let other = try client.signup()
        let target = try client.signup()
        for _ in 0..<3 { assertSuccess(try client.request("PUT", "/v1/users/\(target.id)/follow", token: writer.token), 200) }
        assertLimited(try client.request("DELETE", "/v1/users/\(target.id)/follow", token: writer.token), "the fourth write in a second")
        assertSuccess(try client.request("PUT", "/v1/users/\(target.id)/follow", token: other.token), 200)
        XCTAssertEqual(try client.me(writer.token).status, 200, "reads are not writes")
        assertSuccess(try client.request("DELETE", "/v1/users/\(target.id)/follow", token: writer.token), 200, "after Retry-After")
    }

    func testAllRequestsPerAddressWhenSet() throws {
        let (_, client) = try server(["--limit-requests", "5/s"])
        for _ in 0..<5 { XCTAssertEqual(try client.request("GET", "/healthz").status, 200) }
        assertLimited(try client.request("GET", "/v1/users/me", token: "not-a-token"), "any request, even one with a bad token")
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
    }

    func testMailsPerAddressAndPerClient() throws {
        let smtp = try SMTPStandIn()
        let mail = try MailServer(smtp: smtp, extra: ["--limit-mails", "2/s", "--limit-mails-per-ip", "3/s"])
        let address = "someone-\(Fake.username().lowercased())@example.com"
        for _ in 0..<2 { assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": address]), 204) }
        assertLimited(try mail.client.request("POST", "/v1/password-resets", json: ["email": address.uppercased()]),
                      "a third mail to one address in a second, in any case, whether or not it has an account")
        for index in 0..<3 {
            assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": "other\(index)-\(address)"]), 204)
        }
        assertLimited(try mail.client.request("POST", "/v1/password-resets", json: ["email": "fourth-\(address)"]),
                      "a fourth mail from one client in a second")
        assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": address]), 204)
    }

    /// Behind a trusted proxy, the last hop of X-Forwarded-For is the client; from anyone else it is ignored.
    func testForwardedForIsHonouredOnlyFromATrustedProxy() throws {
        let (_, trusted) = try server(["--limit-requests", "2/s", "--trusted-proxy", "10.9.9.9, 127.0.0.1"])
        for _ in 0..<2 { XCTAssertEqual(try trusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "203.0.113.7, 198.51.100.1"]).status, 200) }
        assertError(try trusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "203.0.113.7, 198.51.100.1"]), 429, "rate_limited",
                    "the third request of client 198.51.100.1")
        XCTAssertEqual(try trusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "198.51.100.1, 198.51.100.2"]).status, 200,
                       "another client behind the proxy (only the last hop counts, the rest is the client's to forge)")

        let (_, untrusted) = try server(["--limit-requests", "2/s", "--trusted-proxy", "10.9.9.9"])
        XCTAssertEqual(try untrusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "198.51.100.1"]).status, 200)
        XCTAssertEqual(try untrusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "198.51.100.2"]).status, 200)
        assertError(try untrusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "198.51.100.3"]), 429, "rate_limited",
                    "an untrusted peer's X-Forwarded-For is ignored: it is one client")
    }

    /// The defaults are on when no flag is given (the harness turns them off; here they are back).
    func testDefaultsAreOn() throws {
        let server = try TestServer(extraArguments: [])
        XCTAssertTrue(server.serveArguments.contains("--limit-signups"), "the harness turns limits off by flag")
        let help = TestServer.run(binary: server.binary, arguments: ["serve", "--help"], timeout: 30)
        for flag in ["--limit-signups N/h", "(50/h)", "--limit-logins N/m", "(60/m)", "--limit-mails N/h", "(5/h)", "--limit-writes N/m", "(600/m)",
                     "--limit-requests N/s", "(off)", "--trusted-proxy", "--smtp-url", "--mail-from", "--public-url"] {
            XCTAssertTrue(help.stdout.contains(flag), "serve --help mentions \(flag)")
        }
        let bad = TestServer.run(binary: server.binary, arguments: ["serve", "--limit-writes", "ten/m", "--data-dir", server.dataDir.path], timeout: 30)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("--limit-writes"), bad.stderr)
    }
}
