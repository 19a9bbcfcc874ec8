import XCTest

/// POST /v1/users: what a sign-up screen must be able to show, field by field.
final class SignupTests: ServerTestCase {
    private func signupResult(username: Any? = nil, email: Any? = nil, password: Any? = nil, extra: [String: Any] = [:]) throws -> HTTPResult {
        var body: [String: Any] = [
            "username": username ?? Fake.username(),
            "email": email ?? Fake.email(for: Fake.username()),
            "password": password ?? Fake.password(),
        ]
        body.merge(extra) { $1 }
        return try client.request("POST", "/v1/users", json: body)
    }

    func testSuccessReturnsOwnUserAndAWorkingSession() throws {
        let username = "Mixed_" + Fake.username(length: 10)
        let email = "\(username.lowercased())@example.com"
        let before = Date()
        let result = try client.request("POST", "/v1/users", json: ["username": username, "email": email, "password": Fake.password()])
        let body = assertSuccess(result, 201)
        let user = body["user"] as? [String: Any]
        assertOwnUser(user, username: username, email: email)
        XCTAssertEqual(user?["displayName"] as? String, username, "displayName defaults to the username")
        XCTAssertTrue(user?["avatarUrl"] is NSNull, "avatarUrl is null: \(user ?? [:])")
        XCTAssertEqual(user?["role"] as? String, "user")
        XCTAssertEqual(jsonInt(user?["followersCount"]), 0)
        XCTAssertEqual(jsonInt(user?["followingCount"]), 0)
        XCTAssertEqual(jsonInt(user?["videosCount"]), 0)
        XCTAssertEqual(user?["emailVerified"] as? Bool, false)
        XCTAssertEqual(notificationSettings(user), ["newVideos": true, "myActivity": true, "followingActivity": false])
        assertTimestamp(user?["createdAt"], near: before, "createdAt")
        XCTAssertNil(user?["isFollowing"], "User(me) is not followed by oneself")

        let token = try XCTUnwrap(body["sessionToken"] as? String, "sessionToken: \(result)")
        XCTAssertGreaterThanOrEqual(token.count, 32, "a session token is long enough not to be guessed")
        let me = assertSuccess(try client.me(token), 200, "GET /v1/users/me with the signup token")
        assertOwnUser(me, username: username, email: email)
        XCTAssertEqual(me["id"] as? String, user?["id"] as? String)
        XCTAssertEqual(me["createdAt"] as? String, user?["createdAt"] as? String)
    }

    func testDisplayNameIsKeptTrimmed() throws {
        let account = try client.signup(displayName: "  Kalle Rovanperä \t")
        XCTAssertEqual(account.user["displayName"] as? String, "Kalle Rovanperä")
    }

    func testSessionTokensAreDistinct() throws {
        let first = try client.signup()
        let second = try client.signup()
        XCTAssertNotEqual(first.token, second.token)
        XCTAssertNotEqual(first.id, second.id)
    }

    func testRoleInBodyIsIgnored() throws {
        let result = try signupResult(extra: ["role": "admin", "emailVerified": true, "followersCount": 1000])
        let user = assertSuccess(result, 201)["user"] as? [String: Any]
        XCTAssertEqual(user?["role"] as? String, "user", "a client cannot sign itself up as admin")
        XCTAssertEqual(user?["emailVerified"] as? Bool, false)
        XCTAssertEqual(jsonInt(user?["followersCount"]), 0)
    }

    func testUsernameLengthBounds() throws {
        assertError(try signupResult(username: Fake.username(length: 3).prefix(2).description), 400, "validation_failed", field: "username", "2 characters")
        assertError(try signupResult(username: Fake.username(length: 30) + "x"), 400, "validation_failed", field: "username", "31 characters")
        assertSuccess(try signupResult(username: Fake.username(length: 3)), 201, "3 characters")
        assertSuccess(try signupResult(username: Fake.username(length: 30)), 201, "30 characters")
        assertSuccess(try signupResult(username: "a.b_" + Fake.username(length: 8)), 201, "dots and underscores")
    }

    func testUsernameCharacters() throws {
        for bad in ["bad name", "ünï", "ab-cd", "abc!", "abc@def", "名前です", "abc\u{0}", "", " abcd"] {
            assertError(try signupResult(username: bad), 400, "validation_failed", field: "username", bad.debugDescription)
        }
    }

    func testPasswordLengthCountsBytes() throws {
        assertError(try signupResult(password: Fake.password(length: 7)), 400, "validation_failed", field: "password", "7 bytes")
        assertSuccess(try signupResult(password: Fake.password(length: 8)), 201, "8 bytes")
        assertSuccess(try signupResult(password: Fake.password(length: 72)), 201, "72 bytes")
        assertError(try signupResult(password: Fake.password(length: 73)), 400, "validation_failed", field: "password", "73 bytes")
        let emoji100Bytes = String(repeating: "🔒", count: 25)
        XCTAssertEqual(emoji100Bytes.utf8.count, 100)
        assertError(try signupResult(password: emoji100Bytes), 400, "validation_failed", field: "password",
                    "25 emoji are 25 characters but 100 bytes; bcrypt would silently cut them")
        let emoji72Bytes = String(repeating: "🔑", count: 18)
        assertSuccess(try signupResult(password: emoji72Bytes), 201, "18 emoji = 72 bytes")
    }

    func testEmailShape() throws {
        for bad in ["no-at-sign.example.com", "a@b", "has space@example.com", "x@exa mple.com", "@example.com", "x@", ""] {
            assertError(try signupResult(email: bad), 400, "validation_failed", field: "email", bad.debugDescription)
        }
    }

    func testWrongTypesNameTheField() throws {
        assertError(try signupResult(username: 123), 400, "validation_failed", field: "username", "username: 123")
        assertError(try signupResult(email: ["x@example.com"]), 400, "validation_failed", field: "email", "email: [..]")
        assertError(try signupResult(password: 12_345_678), 400, "validation_failed", field: "password", "password: 12345678")
        assertError(try signupResult(extra: ["displayName": 5]), 400, "validation_failed", field: "displayName", "displayName: 5")
        assertError(try signupResult(username: NSNull()), 400, "validation_failed", field: "username", "username: null")
    }

    func testMissingFieldsNameTheField() throws {
        let name = Fake.username()
        let full: [String: Any] = ["username": name, "email": Fake.email(for: name), "password": Fake.password()]
        for field in ["username", "email", "password"] {
            var body = full
            body.removeValue(forKey: field)
            assertError(try client.request("POST", "/v1/users", json: body), 400, "validation_failed", field: .some(field), "without \(field)")
        }
    }

    func testUsernameIsUniqueIgnoringCase() throws {
        let base = Fake.username(length: 12)
        let typed = "Al_" + base.uppercased()
        let first = try client.signup(username: typed)
        XCTAssertEqual(first.user["username"] as? String, typed, "the username keeps its case")
        let again = try signupResult(username: typed.lowercased(), email: "other.\(base)@example.com")
        assertError(again, 409, "username_taken", field: "username")
    }

    func testEmailIsUniqueIgnoringCase() throws {
        let first = try client.signup()
        let again = try signupResult(email: first.email.uppercased())
        assertError(again, 409, "email_taken", field: "email")
    }
}
