import XCTest

/// Logging out: one session, or every session of the user.
final class SessionTests: ServerTestCase {
    func testLogoutCurrentEndsThatSessionAtOnce() throws {
        let account = try client.signup()
        let other = try client.login(account.username, account.password)
        assertSuccess(try client.request("DELETE", "/v1/sessions/current", token: account.token), 204)
        assertError(try client.me(account.token), 401, "invalid_session", "the token right after logout")
        assertError(try client.request("DELETE", "/v1/sessions/current", token: account.token), 401, "invalid_session", "logging out twice")
        XCTAssertEqual(try client.me(other.token).status, 200, "the user's other session is untouched")
    }

    func testLogoutEverywhereEndsEverySession() throws {
        let account = try client.signup()
        let first = try client.login(account.username, account.password)
        let second = try client.login(account.email, account.password)
        let bystander = try client.signup()
        assertSuccess(try client.request("DELETE", "/v1/sessions", token: first.token), 204)
        for (label, token) in [("signup", account.token), ("first login", first.token), ("second login", second.token)] {
            assertError(try client.me(token), 401, "invalid_session", "\(label) session after DELETE /v1/sessions")
        }
        XCTAssertEqual(try client.me(bystander.token).status, 200, "another user's session is untouched")
        let again = try client.login(account.username, account.password)
        XCTAssertEqual(try client.me(again.token).status, 200, "logging in again works")
    }

    func testLogoutNeedsASession() throws {
        assertError(try client.request("DELETE", "/v1/sessions/current"), 401, "unauthorized")
        assertError(try client.request("DELETE", "/v1/sessions"), 401, "unauthorized")
    }
}
