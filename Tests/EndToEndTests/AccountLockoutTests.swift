import XCTest

/// Failures count against the account as well as the login name: guessing by username and by
/// email share one budget of `--lockout-threshold` per window.
final class AccountLockoutTests: ServerTestCase {
    override class var serverArguments: [String] {
        ["--lockout-threshold", "10", "--lockout-window", "60", "--lockout-duration", "60"]
    }

    private func attempt(_ login: String, _ password: String) throws -> HTTPResult {
        try client.request("POST", "/v1/sessions", json: ["login": login, "password": password])
    }

    func testFailuresByUsernameAndByEmailLockTheAccountTogether() throws {
        let account = try client.signup()
        for number in 1...5 {
            assertError(try attempt(account.username, Fake.password()), 401, "invalid_credentials", "by username, failure \(number)")
        }
        for number in 6...10 {
            assertError(try attempt(account.email, Fake.password()), 401, "invalid_credentials", "by email, failure \(number)")
        }
        let locked = try attempt(account.username, account.password)
        assertError(locked, 429, "account_locked", "the 11th attempt, with the right password")
        assertError(try attempt(account.email.uppercased(), account.password), 429, "account_locked", "by email too")
        XCTAssertEqual(try client.me(account.token).status, 200, "an open session keeps working")

        let ghost = Fake.username()
        for _ in 1...10 { _ = try attempt(ghost, Fake.password()) }
        XCTAssertEqual(try attempt(ghost, Fake.password()).body, locked.body, "a locked account answers like a locked unknown name")
    }

    func testFailuresOnOneAccountDoNotLockAnother() throws {
        let first = try client.signup()
        let second = try client.signup()
        for _ in 1...5 { _ = try attempt(first.username, Fake.password()) }
        for _ in 1...5 { _ = try attempt(second.email, Fake.password()) }
        XCTAssertEqual(try client.login(first.email, first.password).user["id"] as? String, first.id)
        XCTAssertEqual(try client.login(second.username, second.password).user["id"] as? String, second.id)
    }
}
