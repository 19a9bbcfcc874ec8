import XCTest

/// DELETE /v1/users/me: the account and its sessions are gone, and its names are free again.
final class AccountDeletionTests: ServerTestCase {
    func testWrongPasswordIsForbidden() throws {
        let account = try client.signup()
        assertError(try client.request("DELETE", "/v1/users/me", json: ["password": Fake.password()], token: account.token),
                    403, "invalid_credentials", "403, not 401: a 401 would make the app log out")
        assertError(try client.request("DELETE", "/v1/users/me", json: [String: Any](), token: account.token),
                    400, "validation_failed", field: "password", "no password")
        XCTAssertEqual(try client.me(account.token).status, 200, "the account is still there")
    }

    func testDeletionRemovesAccountSessionsAndFreesTheNames() throws {
        let account = try client.signup(username: "Gone_" + Fake.username(length: 10))
        let other = try client.login(account.username, account.password)
        let viewer = try client.signup()
        assertSuccess(try client.request("DELETE", "/v1/users/me", json: ["password": account.password], token: account.token), 204)

        assertError(try client.me(account.token), 401, "invalid_session", "the deleting session")
        assertError(try client.me(other.token), 401, "invalid_session", "another session of the deleted user")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": account.password]),
                    401, "invalid_credentials", "login as the deleted user")
        assertError(try client.request("GET", "/v1/users/\(account.username)", token: viewer.token), 404, "not_found", "by username")
        assertError(try client.request("GET", "/v1/users/\(account.id)", token: viewer.token), 404, "not_found", "by id")

        let reborn = try client.signup(username: account.username.lowercased(), email: account.email, password: Fake.password())
        XCTAssertNotEqual(reborn.id, account.id, "a new account gets a new id")
        XCTAssertEqual(try client.me(reborn.token).status, 200)
    }
}
