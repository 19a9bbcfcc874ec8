import Testing
@testable import Auth

/// API.md "Lockout": `threshold` failed logins for one login name within the window lock
/// that name for the lock duration, whether or not an account has it. Time moves only
/// through the manual clock.
@Suite struct LoginThrottleTests {
    static let wrong = "not-the-password"

    /// A small policy so the edges are easy to reach: 3 failures in 60 s lock for 120 s.
    static func smallPolicy(_ configuration: inout Accounts.Configuration) {
        configuration.lockout.threshold = 3
        configuration.lockout.windowMillis = 60_000
        configuration.lockout.lockMillis = 120_000
    }

    /// Fails `count` logins, each answered `invalidCredentials`.
    private func fail(_ fixture: AuthFixture, login: String, times count: Int,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        for _ in 0..<count {
            #expect(throws: AuthError.invalidCredentials, sourceLocation: sourceLocation) {
                try fixture.accounts.logIn(login: login, password: Self.wrong)
            }
        }
    }

    private func lockSeconds(_ fixture: AuthFixture, login: String, password: String = AuthFixture.password) -> Int? {
        do {
            _ = try fixture.accounts.logIn(login: login, password: password)
            return nil
        } catch AuthError.accountLocked(let seconds) {
            return seconds
        } catch {
            return nil
        }
    }

    @Test func defaultsAreTenFailuresInFifteenMinutesLockingFifteenMinutes() {
        let policy = Accounts.Configuration().lockout
        #expect(policy.threshold == 10)
        #expect(policy.windowMillis == 15 * 60 * 1_000)
        #expect(policy.lockMillis == 15 * 60 * 1_000)
    }

    /// With the defaults: ten wrong passwords, then even the right one is refused for 15 minutes.
    @Test func tenFailuresLockTheNameEvenForTheRightPassword() throws {
        let fixture = try AuthFixture()
        let open = try fixture.signUp("seb")
        fail(fixture, login: "seb", times: 10)

        #expect(throws: AuthError.accountLocked(retryAfterSeconds: 900)) {
            try fixture.accounts.logIn(login: "seb", password: AuthFixture.password)
        }
        // Any case of the name is the same name.
        #expect(lockSeconds(fixture, login: "SEB") == 900)
        // A wrong password while locked is also told it is locked, not that it is wrong.
        #expect(lockSeconds(fixture, login: "seb", password: Self.wrong) == 900)
        // Open sessions are not touched.
        #expect(fixture.tokenWorks(open.token))
        // Nor are other names.
        try fixture.signUp("ogier")
        #expect(try fixture.accounts.logIn(login: "ogier", password: AuthFixture.password).account.username == "ogier")
    }

    @Test func theThresholdthFailureIsStillInvalidCredentialsAndTheNextIsLocked() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        try fixture.signUp("seb")
        fail(fixture, login: "seb", times: 2)
        // Two failures: the right password still works, and resets the count.
        #expect(try fixture.accounts.logIn(login: "seb", password: AuthFixture.password).account.username == "seb")
        fail(fixture, login: "seb", times: 3)
        #expect(lockSeconds(fixture, login: "seb") == 120)
    }

    @Test func failuresInAnyCaseCountForOneName() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        try fixture.signUp("SebLoeb")
        fail(fixture, login: "SebLoeb", times: 1)
        fail(fixture, login: "sebloeb", times: 1)
        fail(fixture, login: "SEBLOEB", times: 1)
        #expect(lockSeconds(fixture, login: "sEBlOEB") == 120)
    }

    @Test(arguments: ["ghost", "Ghost@Example.com"])
    func aNameWithNoAccountLocksTheSameWay(_ login: String) throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        fail(fixture, login: login, times: 3)
        // Exactly what a real account would answer, so the lock reveals nothing.
        #expect(throws: AuthError.accountLocked(retryAfterSeconds: 120)) {
            try fixture.accounts.logIn(login: login, password: AuthFixture.password)
        }
        fixture.clock.advance(millis: 120_000)
        #expect(throws: AuthError.invalidCredentials) {
            try fixture.accounts.logIn(login: login, password: AuthFixture.password)
        }
    }

    @Test func theLockIsReleasedAfterTheLockDuration() throws {
        let fixture = try AuthFixture()
        let account = try fixture.signUp("seb").account
        fail(fixture, login: "seb", times: 10)

        fixture.clock.advance(millis: 15 * 60 * 1_000 - 1)
        #expect(lockSeconds(fixture, login: "seb") == 1)

        fixture.clock.advance(millis: 1)
        let signedIn = try fixture.accounts.logIn(login: "seb", password: AuthFixture.password)
        #expect(signedIn.account.id == account.id)
        #expect(fixture.tokenWorks(signedIn.token))
    }

    @Test func afterALockAFullSetOfFailuresIsNeededAgain() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        try fixture.signUp("seb")
        fail(fixture, login: "seb", times: 3)
        // Attempts while locked do not count and do not extend the lock.
        for _ in 0..<5 { #expect(lockSeconds(fixture, login: "seb", password: Self.wrong) != nil) }
        fixture.clock.advance(millis: 120_000)

        fail(fixture, login: "seb", times: 2)
        #expect(lockSeconds(fixture, login: "seb", password: Self.wrong) == nil) // the 3rd failure, answered invalidCredentials
        #expect(lockSeconds(fixture, login: "seb") == 120)
    }

    @Test func retryAfterIsTheRemainingLockInWholeSecondsRoundedUp() throws {
        let fixture = try AuthFixture()
        fail(fixture, login: "seb", times: 10)
        #expect(lockSeconds(fixture, login: "seb") == 900)
        fixture.clock.advance(millis: 1)
        #expect(lockSeconds(fixture, login: "seb") == 900)   // 899.999 s left
        fixture.clock.advance(millis: 999)
        #expect(lockSeconds(fixture, login: "seb") == 899)   // 899.000 s left
        fixture.clock.advance(millis: 500)
        #expect(lockSeconds(fixture, login: "seb") == 899)   // 898.500 s left
        fixture.clock.advance(minutes: 14)
        #expect(lockSeconds(fixture, login: "seb") == 59)    // 58.500 s left
        fixture.clock.advance(millis: 58_499)
        #expect(lockSeconds(fixture, login: "seb") == 1)     // 1 ms left: never 0
    }

    @Test func failuresOutsideTheWindowAreNotCounted() throws {
        let fixture = try AuthFixture()
        try fixture.signUp("seb")
        fail(fixture, login: "seb", times: 9)
        fixture.clock.advance(minutes: 15)
        // The nine old failures have left the window: this is the first of a new one.
        fail(fixture, login: "seb", times: 9)
        #expect(try fixture.accounts.logIn(login: "seb", password: AuthFixture.password).account.username == "seb")
    }

    @Test func failuresSpreadInsideTheWindowAreCounted() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        try fixture.signUp("seb")
        fail(fixture, login: "seb", times: 1)
        fixture.clock.advance(seconds: 30)
        fail(fixture, login: "seb", times: 1)
        fixture.clock.advance(millis: 29_999)
        fail(fixture, login: "seb", times: 1)
        #expect(lockSeconds(fixture, login: "seb") == 120)
    }

    @Test func aSuccessResetsTheCount() throws {
        let fixture = try AuthFixture()
        try fixture.signUp("seb")
        fail(fixture, login: "seb", times: 9)
        _ = try fixture.accounts.logIn(login: "seb", password: AuthFixture.password)
        fail(fixture, login: "seb", times: 9)
        #expect(try fixture.accounts.logIn(login: "seb", password: AuthFixture.password).account.username == "seb")
        fail(fixture, login: "seb", times: 10)
        #expect(lockSeconds(fixture, login: "seb") == 900)
    }

    /// API.md: "10 failed logins for one login name within 15 minutes lock that name".
    /// The throttle counts in fixed windows that start at a window's first failure, so
    /// failures straddling a window boundary are split between two windows: here ten
    /// failures within about a minute do not lock. Fixing it needs the failure times
    /// (a schema change in Storage), so it is recorded as a known issue.
    @Test func tenFailuresStraddlingAWindowBoundaryLock() throws {
        let fixture = try AuthFixture()
        try fixture.signUp("seb")
        fail(fixture, login: "seb", times: 1)            // t = 0 opens a window
        fixture.clock.advance(minutes: 14)
        fail(fixture, login: "seb", times: 8)            // t = 14 min: 9 in the window
        fixture.clock.advance(minutes: 1)
        fail(fixture, login: "seb", times: 2)            // t = 15 min: a new window starts
        // Ten failures between t = 14 and t = 15 minutes, all within 15 minutes.
        #expect(lockSeconds(fixture, login: "seb") != nil)
    }

    @Test func wrongConfirmationPasswordsCountTowardTheLockout() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        let signedIn = try fixture.signUp("Guesser")
        let identity = try fixture.accounts.authenticate(token: signedIn.token.value)
        for _ in 0..<3 {
            #expect(throws: AuthError.wrongPassword) {
                try fixture.accounts.changePassword(identity, confirmation: .password(Self.wrong), new: "brand-new-password")
            }
        }
        // A stolen session cannot keep guessing, even with the right password now.
        #expect(throws: AuthError.accountLocked(retryAfterSeconds: 120)) {
            try fixture.accounts.deleteAccount(identity, confirmation: .password(AuthFixture.password))
        }
        #expect(lockSeconds(fixture, login: "guesser") == 120)
        fixture.clock.advance(minutes: 2)
        try fixture.accounts.changePassword(identity, confirmation: .password(AuthFixture.password), new: "brand-new-password")
    }

    @Test func purgeDropsOnlyWhatNoLongerCounts() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        fail(fixture, login: "old", times: 1)
        fixture.clock.advance(minutes: 2)
        fail(fixture, login: "recent", times: 1)
        _ = try fixture.accounts.purgeExpired()
        let keys = try fixture.rows("SELECT login_key FROM login_failures").map { try $0.decode("login_key", as: String.self) }
        #expect(keys == ["recent"])
    }

    // MARK: Per account

    /// Guesses by username and by email share the account's budget: the threshold is reached
    /// with some of each, and the account is then locked under both names.
    @Test func theUsernameAndTheEmailShareTheAccountsBudget() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        try fixture.signUp("Shared")
        fail(fixture, login: "shared", times: 2)
        fail(fixture, login: "shared@example.com", times: 1)
        #expect(lockSeconds(fixture, login: "Shared") == 120)
        #expect(lockSeconds(fixture, login: "SHARED@example.com") == 120)
    }

    @Test func aSuccessUnderOneNameClearsTheAccountsCount() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        try fixture.signUp("Forgetful")
        fail(fixture, login: "forgetful", times: 2)
        _ = try fixture.accounts.logIn(login: "forgetful@example.com", password: AuthFixture.password)
        fail(fixture, login: "forgetful@example.com", times: 2)
        #expect(lockSeconds(fixture, login: "forgetful@example.com") == nil)
    }

    /// Login names are lower-cased, so no name, however spelled, counts against an account's key.
    @Test func noLoginNameReachesAnAccountsKey() throws {
        let fixture = try AuthFixture(Self.smallPolicy)
        let account = try fixture.signUp("Target").account
        let spelled = LoginThrottle.accountKey(id: account.id)
        fail(fixture, login: spelled, times: 3)
        #expect(lockSeconds(fixture, login: "target") == nil)
    }
}
