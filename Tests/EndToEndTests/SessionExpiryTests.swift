import Foundation
import TestSupport
import XCTest

/// `--session-lifetime`: a token not used for longer than the lifetime stops working.
final class SessionExpiryTests: ServerTestCase {
    override class var serverArguments: [String] { ["--session-lifetime", "2s"] }

    func testATokenIdleLongerThanTheLifetimeIsInvalid() throws {
        let account = try client.signup()
        assertSuccess(try client.me(account.token), 200, "a fresh token works")
        // The token stays idle: using it may extend it. Canaries, sessions of the same account
        // started after it, are asked instead, each once (so none is extended); once one is
        // refused, the token, older and idle as long, is past its lifetime too.
        let canariesStarted = Date()
        var canaries: [String] = []
        for _ in 0..<40 { canaries.append(try client.login(account.username, account.password).token) }
        var refusedAfter: TimeInterval?
        XCTAssertTrue(try waitUntil(timeout: 10, interval: 0.15) {
            guard !canaries.isEmpty else { return false }
            let status = try client.me(canaries.removeFirst()).status
            if status == 401 { refusedAfter = Date().timeIntervalSince(canariesStarted) }
            return status == 401
        }, "a canary session, idle, is refused within 10 s (\(canaries.count) left)")
        XCTAssertGreaterThanOrEqual(refusedAfter ?? 0, 2, "not before the 2 s lifetime")
        assertError(try client.me(account.token), 401, "invalid_session", "the token, idle longer than the lifetime")
        let again = try client.login(account.username, account.password)
        assertSuccess(try client.me(again.token), 200, "logging in again gives a working token")
    }
}
