import Foundation
import XCTest

/// `--session-lifetime`: a token not used for longer than the lifetime stops working.
final class SessionExpiryTests: ServerTestCase {
    override class var serverArguments: [String] { ["--session-lifetime", "2s"] }

    func testATokenIdleLongerThanTheLifetimeIsInvalid() throws {
        let account = try client.signup()
        assertSuccess(try client.me(account.token), 200, "a fresh token works")
        // Idle for the lifetime and a margin (the session cache keeps a token at most 1 s);
        // no request in between, since using a token may extend it.
        sleep(4)
        assertError(try client.me(account.token), 401, "invalid_session", "the token after 4 s idle")
        let again = try client.login(account.username, account.password)
        assertSuccess(try client.me(again.token), 200, "logging in again gives a working token")
    }
}
