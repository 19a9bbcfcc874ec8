import XCTest

/// Strings that break naive servers: the answer is always the envelope or a success, never a 5xx,
/// and what is accepted comes back byte for byte.
final class HostileInputTests: ServerTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        // These strings are sent as names and as passwords alike: a log naming a login is no leak.
        ResponseAudit.shared.exemptFromSecrets(Hostile.all)
    }

    private func assertNoServerError(_ result: HTTPResult, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThan(result.status, 500, "\(context): never a 5xx for bad input: \(result)", file: file, line: line)
        if result.status >= 400 { assertEnvelope(result, context, file: file, line: line) }
    }

    /// What API.md promises for each of `Hostile.all`, in order: a display name is 1..100
    /// characters after trimming, any valid UTF-8 but NUL is kept, so only the 10,002-character
    /// one and the one holding a NUL are refused.
    private static let displayNameAccepted = [true, true, true, true, false, false, true]

    func testHostileDisplayNamesGetTheContractsAnswer() throws {
        XCTAssertEqual(Hostile.all.count, Self.displayNameAccepted.count)
        for (index, (hostile, accepted)) in zip(Hostile.all, Self.displayNameAccepted).enumerated() {
            let name = Fake.username()
            let result = try client.request("POST", "/v1/users", json: [
                "username": name, "email": Fake.email(for: name), "password": Fake.password(), "displayName": hostile,
            ])
            if accepted {
                XCTAssertEqual(result.status, 201, "displayName #\(index) is valid: \(result)")
            } else {
                assertError(result, 400, "validation_failed", field: "displayName", "displayName #\(index)")
            }
        }
    }

    func testNulInDisplayNameIsRefused() throws {
        let name = Fake.username()
        let result = try client.request("POST", "/v1/users", json: [
            "username": name, "email": Fake.email(for: name), "password": Fake.password(), "displayName": Hostile.nul,
        ])
        assertError(result, 400, "validation_failed", field: "displayName")
        let account = try client.signup()
        assertError(try client.request("PATCH", "/v1/users/me", json: ["displayName": Hostile.nul], token: account.token),
                    400, "validation_failed", field: "displayName", "PATCH")
    }

    func testAcceptedHostileDisplayNamesComeBackByteForByte() throws {
        let hundred = String(repeating: "🏁", count: 50) + String(repeating: "é", count: 49) + "\""
        XCTAssertEqual(hundred.count, 100)
        for hostile in [Hostile.quotes, Hostile.sql, Hostile.emoji, Hostile.decomposed, hundred, "<script>alert(1)</script>", "\\u0041 \\n"] {
            let account = try client.signup(displayName: hostile)
            let me = assertSuccess(try client.me(account.token), 200)
            let stored = me["displayName"] as? String ?? ""
            XCTAssertEqual(Array(stored.utf8), Array(hostile.utf8), "displayName \(hostile.debugDescription) came back as \(stored.debugDescription)")

            // Kept within the 100-character limit of display names.
            let patched = String(hostile.prefix(96)) + " (2)"
            _ = assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["displayName": patched], token: account.token), 200)
            let after = assertSuccess(try client.me(account.token), 200)["displayName"] as? String ?? ""
            XCTAssertEqual(Array(after.utf8), Array(patched.utf8), "PATCHed displayName \(patched.debugDescription)")
        }
    }

    func testHostileUsernamesAreValidationErrors() throws {
        for (index, hostile) in Hostile.all.enumerated() {
            let result = try client.request("POST", "/v1/users", json: [
                "username": hostile, "email": Fake.email(for: Fake.username()), "password": Fake.password(),
            ])
            assertError(result, 400, "validation_failed", field: "username", "username #\(index)")
        }
    }

    func testHostileLoginsAreRefusedCleanly() throws {
        for (index, hostile) in Hostile.all.enumerated() {
            let result = try client.request("POST", "/v1/sessions", json: ["login": hostile, "password": Fake.password()])
            assertNoServerError(result, "login #\(index)")
            XCTAssertTrue([400, 401].contains(result.status), "login #\(index): refused with 400 or 401: \(result)")
        }
        // A hostile login must not match someone else's account (no injection, no wildcard).
        let account = try client.signup()
        for pattern in ["%", "_%", "' OR '1'='1", "\(account.username.prefix(3))%", "*"] {
            let result = try client.request("POST", "/v1/sessions", json: ["login": pattern, "password": account.password])
            XCTAssertNotEqual(result.status, 201, "login \(pattern.debugDescription) must not log into \(account.username)")
            assertNoServerError(result, "login \(pattern.debugDescription)")
        }
    }

    /// Passwords are 8..72 bytes without NUL (API.md): of `Hostile.all`, the 26,672-byte one and
    /// the 8-byte one holding a NUL are refused; every other one logs in as typed.
    private static let passwordAccepted = [true, true, true, true, false, false, true]

    func testHostilePasswordsWorkWhenAcceptedAndFailCleanlyWhenNot() throws {
        XCTAssertEqual(Hostile.all.count, Self.passwordAccepted.count)
        for (index, (hostile, accepted)) in zip(Hostile.all, Self.passwordAccepted).enumerated() {
            let name = Fake.username()
            let result = try client.request("POST", "/v1/users", json: ["username": name, "email": Fake.email(for: name), "password": hostile])
            if accepted {
                XCTAssertEqual(result.status, 201, "password #\(index) (\(hostile.utf8.count) bytes) is valid: \(result)")
                XCTAssertEqual(try client.login(name, hostile).user["username"] as? String, name, "password #\(index) logs in as typed")
            } else {
                assertError(result, 400, "validation_failed", field: "password", "password #\(index)")
            }
        }
        let nul = try client.request("POST", "/v1/users", json: ["username": Fake.username(), "email": Fake.email(for: Fake.username()), "password": Hostile.nul + "padding"])
        assertError(nul, 400, "validation_failed", field: "password", "a NUL in a password (bcrypt would stop reading there)")
    }

    func testHostilePathsAndQueries() throws {
        let account = try client.signup()
        // A NUL, a broken escape or bytes that are not UTF-8 make the URL itself bad (400
        // bad_request); anything else that names nobody is 404 not_found.
        let expected: [(String, Int, String)] = [
            ("/v1/users/%00", 400, "bad_request"),
            ("/v1/users/%27%3B%20DROP%20TABLE%20users%3B--", 404, "not_found"),
            ("/v1/users/..%2F..%2Fetc%2Fpasswd", 404, "not_found"),
            ("/v1/users/%F0%9F%8F%81", 404, "not_found"),
            ("/v1/users/%FF%FE", 400, "bad_request"),
            ("/v1/users/\(String(repeating: "a", count: 2000))", 404, "not_found"),
            ("/v1/users/me?x=%00&y=%", 400, "bad_request"),
            ("/v1/users/me?y=%", 400, "bad_request"),
        ]
        for (path, status, code) in expected {
            assertError(try client.request("GET", path, token: account.token), status, code, String(path.prefix(60)))
        }
    }
}
