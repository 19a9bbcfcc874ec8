import XCTest

/// Repeated failed logins lock a login name for a while (here: 3 failures in 60 s lock it for 2 s).
final class LockoutTests: ServerTestCase {
    override class var serverArguments: [String] {
        ["--lockout-threshold", "3", "--lockout-window", "60", "--lockout-duration", "2"]
    }

    private func attempt(_ login: String, _ password: String) throws -> HTTPResult {
        try client.request("POST", "/v1/sessions", json: ["login": login, "password": password])
    }

    func testFailuresLockTheAccountButNotItsOpenSessionsAndTheLockExpires() throws {
        let account = try client.signup()
        for attemptNumber in 1...3 {
            assertError(try attempt(account.username, Fake.password()), 401, "invalid_credentials", "failure \(attemptNumber)")
        }
        let locked = try attempt(account.username, account.password)
        assertError(locked, 429, "account_locked", "the right password while locked")
        assertError(try attempt(account.username, Fake.password()), 429, "account_locked", "a wrong password while locked")
        XCTAssertEqual(try client.me(account.token).status, 200, "an open session keeps working during a lockout")

        Thread.sleep(forTimeInterval: 2.5)  // The lock lasts 2 s: the only wait in the suite.
        let session = try client.login(account.username, account.password)
        XCTAssertEqual(session.user["id"] as? String, account.id, "after the lockout the right password works")
    }

    func testUnknownLoginNameLocksTheSameWay() throws {
        let account = try client.signup()
        for _ in 1...3 { _ = try attempt(account.username, Fake.password()) }
        let lockedReal = try attempt(account.username, Fake.password())

        let ghost = Fake.username()
        for attemptNumber in 1...3 {
            assertError(try attempt(ghost, Fake.password()), 401, "invalid_credentials", "unknown name, failure \(attemptNumber)")
        }
        let lockedGhost = try attempt(ghost, Fake.password())
        assertError(lockedGhost, 429, "account_locked", "an unknown name locks too, so a lockout reveals nothing")
        XCTAssertEqual(lockedGhost.body, lockedReal.body, "a locked unknown name answers exactly like a locked account")
    }

    func testLockIgnoresTheCaseOfTheLoginName() throws {
        let account = try client.signup(username: "Case_" + Fake.username(length: 10))
        for login in [account.username.uppercased(), account.username.lowercased(), account.username] {
            assertError(try attempt(login, Fake.password()), 401, "invalid_credentials", login)
        }
        assertError(try attempt(account.username.lowercased(), account.password), 429, "account_locked",
                    "failures in any case count toward one login name, as login itself ignores case")
    }

    func testOtherAccountsAreNotLocked() throws {
        let victim = try client.signup()
        let bystander = try client.signup()
        for _ in 1...3 { _ = try attempt(victim.username, Fake.password()) }
        assertError(try attempt(victim.username, victim.password), 429, "account_locked")
        XCTAssertEqual(try client.login(bystander.username, bystander.password).user["id"] as? String, bystander.id)
    }

    func testSuccessfulLoginsDoNotCountAsFailures() throws {
        let account = try client.signup()
        for _ in 1...4 { _ = try client.login(account.username, account.password) }
        _ = try attempt(account.username, Fake.password())
        XCTAssertEqual(try client.login(account.username, account.password).user["id"] as? String, account.id,
                       "one failure after several successes does not lock")
    }
}
