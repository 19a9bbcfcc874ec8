import Foundation
import TestSupport
import XCTest

/// API.md "Limits on abuse": each limit answers 429 `rate_limited` with `Retry-After` at its
/// threshold, and lets the client through again once that time has passed. Limits not under
/// test are off (`TestServer.limitsOff`).
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

    /// Asserts the refusal and answers its Retry-After in seconds.
    @discardableResult
    private func assertLimited(_ result: HTTPResult, _ context: String, file: StaticString = #filePath, line: UInt = #line) -> Int {
        assertError(result, 429, "rate_limited", context, file: file, line: line)
        let seconds = Int(result.headers["retry-after"] ?? "") ?? -1
        XCTAssertTrue((1...60).contains(seconds), "\(context): Retry-After is whole seconds within the window, got \(result.headers["retry-after"] ?? "none")",
                      file: file, line: line)
        return max(0, min(seconds, 60))
    }

    private func signupBody() -> [String: Any] {
        let username = Fake.username()
        return ["username": username, "email": Fake.email(for: username), "password": Fake.password()]
    }

    /// Each limit of one server at once, with windows of a minute: the requests that must pass
    /// and the one refused need not fit in a fraction of a second on a busy machine. Then one
    /// wait, the longest Retry-After, and each lets the client through again.
    func testEachLimitRefusesAtItsThresholdAndLetsTheClientThroughAfterRetryAfter() throws {
        let smtp = try SMTPStandIn()
        let mail = try MailServer(smtp: smtp, extra: ["--limit-signups", "3/m", "--limit-logins", "3/m", "--limit-writes", "3/m",
                                                      "--limit-mails", "2/m", "--limit-mails-per-ip", "7/m"])
        let client = mail.client
        var waits: [Int] = []

        // Sign-ups per client address.
        var accounts: [Account] = []
        for _ in 0..<3 { accounts.append(try client.signup()) }
        waits.append(assertLimited(try client.request("POST", "/v1/users", json: signupBody()), "the fourth sign-up in the window"))

        // Logins per client address, whatever the names and passwords.
        let (writer, other) = (accounts[0], accounts[1])
        assertError(try client.request("POST", "/v1/sessions", json: ["login": "someone", "password": Fake.password()]), 401, "invalid_credentials")
        _ = try client.login(writer.username, writer.password)
        _ = try client.login(writer.email, writer.password)
        waits.append(assertLimited(try client.request("POST", "/v1/sessions", json: ["login": writer.username, "password": writer.password]),
                                   "the fourth login in the window, with the right password"))

        // Writes per user.
        for _ in 0..<3 { assertSuccess(try client.request("PUT", "/v1/users/\(accounts[2].id)/follow", token: writer.token), 200) }
        waits.append(assertLimited(try client.request("DELETE", "/v1/users/\(accounts[2].id)/follow", token: writer.token), "the fourth write"))
        assertSuccess(try client.request("PUT", "/v1/users/\(accounts[2].id)/follow", token: other.token), 200, "another user's writes")
        XCTAssertEqual(try client.me(writer.token).status, 200, "reads are not writes")

        // Mails per address (counted whether or not it has an account, in any case), then per
        // client: the three sign-ups' verification mails counted already, then 2 + 2 resets.
        let address = "someone-\(Fake.username().lowercased())@example.com"
        for _ in 0..<2 { assertSuccess(try client.request("POST", "/v1/password-resets", json: ["email": address]), 204) }
        waits.append(assertLimited(try client.request("POST", "/v1/password-resets", json: ["email": address.uppercased()]), "a third mail to one address"))
        for index in 0..<2 { assertSuccess(try client.request("POST", "/v1/password-resets", json: ["email": "other\(index)-\(address)"]), 204) }
        waits.append(assertLimited(try client.request("POST", "/v1/password-resets", json: ["email": "fifth-\(address)"]), "a fifth mail from one client"))

        let metrics = try client.request("GET", "/metrics").text
        for limit in ["signups", "logins", "writes", "mails", "mails_per_ip"] {
            XCTAssertTrue(metrics.contains("pacenote_rate_limited_total{limit=\"\(limit)\"} 1"), "refusals are counted by limit: \(limit)")
        }

        // The behaviour under test: each request, sent once after the longest Retry-After, as a
        // client told to wait would, passes. (Asking each in a loop until it passes would mix the
        // limits' windows: a sign-up's verification mail counts against the mail limits.)
        Thread.sleep(forTimeInterval: Double(waits.max() ?? 0))
        assertSuccess(try client.request("POST", "/v1/users", json: signupBody()), 201, "a sign-up after Retry-After")
        _ = try client.login(writer.username, writer.password)
        assertSuccess(try client.request("DELETE", "/v1/users/\(accounts[2].id)/follow", token: writer.token), 200, "a write after Retry-After")
        assertSuccess(try client.request("POST", "/v1/password-resets", json: ["email": address]), 204, "a mail after Retry-After")
    }

    /// The probe's mail flood: changing one's email back and forth to someone else's address
    /// mailed it without limit. Every mail an email change sends (the new address's
    /// verification, the old one's notice) counts against both mail limits, and so does the
    /// change itself when its answer (409, taken) tells whether an address has an account.
    func testEmailChangesCountAgainstTheMailLimits() throws {
        let mail = try MailServer(smtp: try SMTPStandIn(), extra: ["--limit-mails", "3/h", "--limit-mails-per-ip", "40/h"])
        let attacker = try mail.client.signup()
        let victim = "victim-\(Fake.username().lowercased())@example.com"
        var statuses: [Int] = []
        for round in 0..<6 {
            let target = round % 2 == 0 ? victim : "attacker\(round)-" + attacker.email
            let answer = try mail.client.request("PATCH", "/v1/users/me", json: ["email": target, "currentPassword": attacker.password], token: attacker.token)
            statuses.append(answer.status)
            if answer.status == 429 { break }
        }
        XCTAssertEqual(statuses.last, 429, "the changes were limited: \(statuses)")
        _ = mail.smtp.waitForMessages(statuses.count, timeout: 5)
        let toVictim = mail.smtp.messages().filter { ($0["rcptTos"] as? [String]) == [victim] }
        XCTAssertLessThanOrEqual(toVictim.count, 3, "mails to the victim's address stay within --limit-mails")

        let owner = try mail.client.signup()
        var taken: [Int] = []
        for _ in 0..<30 {
            let answer = try mail.client.request("PATCH", "/v1/users/me", json: ["email": owner.email, "currentPassword": attacker.password], token: attacker.token)
            taken.append(answer.status)
            if answer.status == 429 { break }
        }
        XCTAssertEqual(taken.last, 429, "asking again and again whether an address is taken is limited: \(taken)")
        XCTAssertLessThan(taken.count, 30)
    }

    func testAllRequestsPerAddressWhenSet() throws {
        let (_, client) = try server(["--limit-requests", "10/m"])
        for _ in 0..<10 { XCTAssertEqual(try client.request("GET", "/healthz").status, 200) }
        let refusedAt = Date()
        let wait = assertLimited(try client.request("GET", "/v1/users/me", token: "not-a-token"), "any request, even one with a bad token")
        // Refused requests cost nothing (the limiter counts only those it lets through): ask
        // until one passes, which must be once Retry-After has passed, and not much later.
        var status = 0
        var passedAfter: TimeInterval = 0
        XCTAssertTrue(try waitUntil(timeout: Double(wait) + 10, interval: 0.1) {
            let asked = Date()
            status = try client.request("GET", "/healthz").status
            passedAfter = asked.timeIntervalSince(refusedAt)
            return status != 429
        }, "let through again within Retry-After (\(wait) s) and 10 s")
        XCTAssertEqual(status, 200, "after Retry-After")
        XCTAssertGreaterThan(passedAfter, Double(wait - 1), "not before Retry-After (whole seconds, rounded up): \(passedAfter) s")
        XCTAssertLessThan(passedAfter, Double(wait) + 2, "soon once Retry-After has passed: \(passedAfter) s")
    }

    /// Behind a trusted proxy, the last hop of X-Forwarded-For is the client; from anyone else it is ignored.
    func testForwardedForIsHonouredOnlyFromATrustedProxy() throws {
        let (_, trusted) = try server(["--limit-requests", "2/m", "--trusted-proxy", "10.9.9.9, 127.0.0.1"])
        for _ in 0..<2 { XCTAssertEqual(try trusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "203.0.113.7, 198.51.100.1"]).status, 200) }
        assertError(try trusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "203.0.113.7, 198.51.100.1"]), 429, "rate_limited",
                    "the third request of client 198.51.100.1")
        XCTAssertEqual(try trusted.request("GET", "/healthz", headers: ["X-Forwarded-For": "198.51.100.1, 198.51.100.2"]).status, 200,
                       "another client behind the proxy (only the last hop counts, the rest is the client's to forge)")

        let (_, untrusted) = try server(["--limit-requests", "2/m", "--trusted-proxy", "10.9.9.9"])
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
