import XCTest

/// PUT /v1/users/me/password: the caller stays logged in, every other session ends.
final class PasswordChangeTests: ServerTestCase {
    private func change(_ token: String, current: Any, new: Any) throws -> HTTPResult {
        try client.request("PUT", "/v1/users/me/password", json: ["currentPassword": current, "newPassword": new], token: token)
    }

    func testWrongCurrentPasswordIsForbiddenNotUnauthorized() throws {
        let account = try client.signup()
        assertError(try change(account.token, current: Fake.password(), new: Fake.password()), 403, "invalid_credentials",
                    "403, not 401: a 401 would make the app log out")
        XCTAssertEqual(try client.me(account.token).status, 200, "the session survives a wrong current password")
        XCTAssertEqual(try client.login(account.username, account.password).user["id"] as? String, account.id, "the password is unchanged")
    }

    func testChangeKeepsCallerEndsOthersAndSwapsPasswords() throws {
        let account = try client.signup()
        let other = try client.login(account.username, account.password)
        let newPassword = Fake.password()
        assertSuccess(try change(account.token, current: account.password, new: newPassword), 204)
        XCTAssertEqual(try client.me(account.token).status, 200, "the calling session keeps working")
        assertError(try client.me(other.token), 401, "invalid_session", "another session of the user ends")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": account.password]),
                    401, "invalid_credentials", "the old password no longer works")
        XCTAssertEqual(try client.login(account.username, newPassword).user["id"] as? String, account.id, "the new password works")
    }

    func testNewPasswordIsValidated() throws {
        let account = try client.signup()
        assertError(try change(account.token, current: account.password, new: Fake.password(length: 7)), 400, "validation_failed", field: "newPassword", "7 bytes")
        assertError(try change(account.token, current: account.password, new: Fake.password(length: 73)), 400, "validation_failed", field: "newPassword", "73 bytes")
        assertError(try change(account.token, current: account.password, new: 12_345_678), 400, "validation_failed", field: "newPassword", "a number")
        assertError(try client.request("PUT", "/v1/users/me/password", json: ["newPassword": Fake.password()], token: account.token),
                    400, "validation_failed", field: "currentPassword", "no currentPassword")
        XCTAssertEqual(try client.login(account.username, account.password).user["id"] as? String, account.id, "a refused change changes nothing")
    }

    func testChangeNeedsASession() throws {
        assertError(try client.request("PUT", "/v1/users/me/password", json: ["currentPassword": Fake.password(), "newPassword": Fake.password()]),
                    401, "unauthorized")
    }
}
