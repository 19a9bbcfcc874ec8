import XCTest

/// POST /v1/sessions: logging in by username or email, and failing without telling an attacker anything.
final class LoginTests: ServerTestCase {
    func testLoginByUsernameInAnyCase() throws {
        let account = try client.signup(username: "Rally_" + Fake.username(length: 10))
        for login in [account.username, account.username.lowercased(), account.username.uppercased()] {
            let result = try client.request("POST", "/v1/sessions", json: ["login": login, "password": account.password])
            let body = assertSuccess(result, 201, "login \(login)")
            let user = body["user"] as? [String: Any]
            XCTAssertEqual(user?["id"] as? String, account.id)
            XCTAssertEqual(user?["username"] as? String, account.username, "the username keeps the case it was typed in at signup")
            let token = try XCTUnwrap(body["sessionToken"] as? String)
            XCTAssertNotEqual(token, account.token, "each login opens a new session")
            XCTAssertEqual(try client.me(token).status, 200, "the new token works")
        }
    }

    func testLoginByEmailInAnyCase() throws {
        let account = try client.signup()
        for login in [account.email, account.email.uppercased()] {
            let session = try client.login(login, account.password)
            XCTAssertEqual(session.user["id"] as? String, account.id)
            XCTAssertEqual(try client.me(session.token).status, 200)
        }
    }

    func testLoginReturnsOwnUser() throws {
        let account = try client.signup()
        let session = try client.login(account.username, account.password)
        assertOwnUser(session.user, username: account.username, email: account.email)
    }

    func testWrongPasswordAndUnknownUserAnswerIdentically() throws {
        let account = try client.signup()
        let wrongPassword = try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": Fake.password()])
        let unknownUser = try client.request("POST", "/v1/sessions", json: ["login": Fake.username(), "password": Fake.password()])
        let unknownEmail = try client.request("POST", "/v1/sessions", json: ["login": "nobody.\(Fake.username())@example.com", "password": Fake.password()])
        assertError(wrongPassword, 401, "invalid_credentials", "wrong password")
        assertError(unknownUser, 401, "invalid_credentials", "unknown user")
        assertError(unknownEmail, 401, "invalid_credentials", "unknown email")
        XCTAssertEqual(wrongPassword.body, unknownUser.body, "the answer must not reveal whether the account exists")
        XCTAssertEqual(wrongPassword.body, unknownEmail.body, "the answer must not reveal whether the email exists")
        XCTAssertEqual(wrongPassword.errorMessage, unknownUser.errorMessage)
    }

    func testPasswordIsCaseSensitiveAndNotTruncated() throws {
        let password = Fake.password(length: 20)
        let account = try client.signup(password: password)
        assertError(try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": password.uppercased()]),
                    401, "invalid_credentials", "password in other case")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": String(password.dropLast())]),
                    401, "invalid_credentials", "password minus its last character")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": account.username, "password": password + "x"]),
                    401, "invalid_credentials", "password plus one character")
    }

    func testMissingOrMistypedFields() throws {
        assertError(try client.request("POST", "/v1/sessions", json: ["password": Fake.password()]), 400, "validation_failed", field: "login")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": Fake.username()]), 400, "validation_failed", field: "password")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": 42, "password": Fake.password()]), 400, "validation_failed", field: "login")
    }
}
