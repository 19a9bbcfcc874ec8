import XCTest

/// PATCH /v1/users/me merges, and GET /v1/users/{idOrUsername} shows the public profile.
final class ProfileTests: ServerTestCase {
    func testDisplayNameChangeLeavesEverythingElse() throws {
        let account = try client.signup()
        let before = assertSuccess(try client.me(account.token), 200)
        let result = try client.request("PATCH", "/v1/users/me", json: ["displayName": "  Ott Tänak  "], token: account.token)
        let patched = assertSuccess(result, 200)
        assertOwnUser(patched, username: account.username, email: account.email)
        XCTAssertEqual(patched["displayName"] as? String, "Ott Tänak", "displayName is stored trimmed")
        let after = assertSuccess(try client.me(account.token), 200)
        XCTAssertEqual(after["displayName"] as? String, "Ott Tänak")
        for key in ["id", "username", "email", "createdAt", "role"] {
            XCTAssertEqual(after[key] as? String, before[key] as? String, "\(key) is untouched by a displayName change")
        }
        XCTAssertEqual(notificationSettings(after), notificationSettings(before))
    }

    func testNotificationSettingsMergeKeyByKey() throws {
        let account = try client.signup()
        let first = assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["notificationSettings": ["followingActivity": true]], token: account.token), 200)
        XCTAssertEqual(notificationSettings(first), ["newVideos": true, "myActivity": true, "followingActivity": true])
        let second = assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["notificationSettings": ["newVideos": false]], token: account.token), 200)
        XCTAssertEqual(notificationSettings(second), ["newVideos": false, "myActivity": true, "followingActivity": true])
        XCTAssertEqual(notificationSettings(assertSuccess(try client.me(account.token), 200)),
                       ["newVideos": false, "myActivity": true, "followingActivity": true], "the merge is stored")
        XCTAssertEqual(second["displayName"] as? String, account.username, "displayName untouched")
    }

    func testEmptyPatchChangesNothing() throws {
        let account = try client.signup(displayName: "Petter")
        let result = assertSuccess(try client.request("PATCH", "/v1/users/me", json: [String: Any](), token: account.token), 200)
        XCTAssertEqual(result["displayName"] as? String, "Petter")
        XCTAssertEqual((result["email"] as? String)?.lowercased(), account.email)
    }

    func testEmailChange() throws {
        let account = try client.signup()
        let taken = try client.signup()
        assertError(try client.request("PATCH", "/v1/users/me", json: ["email": taken.email.uppercased(), "currentPassword": account.password],
                                       token: account.token), 409, "email_taken", field: "email")
        assertError(try client.request("PATCH", "/v1/users/me", json: ["email": "not-an-email"], token: account.token),
                    400, "validation_failed", field: "email")
        let newEmail = "new.\(account.username)@example.org"
        let patched = assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["email": newEmail, "currentPassword": account.password],
                                                       token: account.token), 200)
        XCTAssertEqual(patched["email"] as? String, newEmail)
        XCTAssertEqual(try client.login(newEmail, account.password).user["id"] as? String, account.id, "login with the new email")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": account.email, "password": account.password]),
                    401, "invalid_credentials", "the old email no longer logs in")
        XCTAssertEqual(try client.signup(email: account.email).email, account.email, "the old email is free again")
    }

    func testInvalidDisplayNames() throws {
        let account = try client.signup(displayName: "Before")
        assertError(try client.request("PATCH", "/v1/users/me", json: ["displayName": 42], token: account.token),
                    400, "validation_failed", field: "displayName", "a number")
        assertError(try client.request("PATCH", "/v1/users/me", json: ["displayName": "   \t "], token: account.token),
                    400, "validation_failed", field: "displayName", "blank after trimming")
        assertError(try client.request("PATCH", "/v1/users/me", json: ["notificationSettings": ["newVideos": "yes"]], token: account.token),
                    400, "validation_failed", "a setting that is not a boolean")
        XCTAssertEqual(assertSuccess(try client.me(account.token), 200)["displayName"] as? String, "Before", "a refused PATCH changes nothing")
        XCTAssertEqual(notificationSettings(assertSuccess(try client.me(account.token), 200))["newVideos"], true)
    }

    func testPatchCannotChangeRoleOrUsername() throws {
        let account = try client.signup()
        let result = try client.request("PATCH", "/v1/users/me", json: ["role": "admin", "username": "hijack_" + account.username.prefix(10), "displayName": "Still Me"], token: account.token)
        let patched = assertSuccess(result, 200)
        XCTAssertEqual(patched["role"] as? String, "user", "role is not a PATCH field")
        XCTAssertEqual(patched["username"] as? String, account.username, "username is not a PATCH field")
        XCTAssertEqual(patched["displayName"] as? String, "Still Me")
    }

    func testPatchNeedsASession() throws {
        assertError(try client.request("PATCH", "/v1/users/me", json: ["displayName": "x y"]), 401, "unauthorized")
    }

    func testPublicProfileByIdAndByUsernameInAnyCase() throws {
        let target = try client.signup(username: "Pub_" + Fake.username(length: 10), displayName: "Thierry")
        let viewer = try client.signup()
        for key in [target.id, target.username, target.username.lowercased(), target.username.uppercased()] {
            let user = assertSuccess(try client.request("GET", "/v1/users/\(key)", token: viewer.token), 200, "GET /v1/users/\(key)")
            assertPublicUser(user, username: target.username)
            XCTAssertEqual(user["id"] as? String, target.id)
            XCTAssertEqual(user["displayName"] as? String, "Thierry")
            for privateKey in ["email", "emailVerified", "notificationSettings"] {
                XCTAssertNil(user[privateKey], "a public User never shows \(privateKey): \(user)")
            }
            XCTAssertTrue(isJSONBool(user["isFollowing"]), "with a session, another user carries isFollowing: \(user)")
            XCTAssertEqual(user["isFollowing"] as? Bool, false)
        }
    }

    func testUnknownUserIsNotFound() throws {
        let viewer = try client.signup()
        assertError(try client.request("GET", "/v1/users/\(Fake.username())", token: viewer.token), 404, "not_found")
        assertError(try client.request("GET", "/v1/users/does-not-exist-\(UUID().uuidString)", token: viewer.token), 404, "not_found")
    }

    func testPublicProfileNeedsASessionByDefault() throws {
        let target = try client.signup()
        assertError(try client.request("GET", "/v1/users/\(target.username)"), 401, "unauthorized", "without --public-read")
    }
}
