import Foundation
import TestSupport
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
        var lockStarted = Date()
        for attemptNumber in 1...3 {
            lockStarted = Date()
            assertError(try attempt(account.username, Fake.password()), 401, "invalid_credentials", "failure \(attemptNumber)")
        }
        let locked = try attempt(account.username, account.password)
        assertError(locked, 429, "account_locked", "the right password while locked")
        assertError(try attempt(account.username, Fake.password()), 429, "account_locked", "a wrong password while locked")
        XCTAssertEqual(try client.me(account.token).status, 200, "an open session keeps working during a lockout")

        // The lock lasts 2 s: the right password is refused until then (a refusal while locked
        // counts as no failure), then works.
        var last = locked
        var triedAfter: TimeInterval = 0
        XCTAssertTrue(try waitUntil(timeout: 10, interval: 0.1) {
            triedAfter = Date().timeIntervalSince(lockStarted)
            last = try attempt(account.username, account.password)
            return last.status != 429
        }, "the lock expires within 10 s")
        assertSuccess(last, 201, "after the lockout the right password works")
        XCTAssertEqual(child(last.object, "user")?["id"] as? String, account.id, "after the lockout the right password works")
        XCTAssertGreaterThanOrEqual(triedAfter, 1.99, "not before the lock's 2 s are over")
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
