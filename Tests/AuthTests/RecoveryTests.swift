import Storage
import Testing
@testable import Auth

/// Email verification and password reset (API.md), with a manual clock for the lifetimes.
struct RecoveryTests {
    /// Queues nothing; remembers the mails the calls asked for, and the reset requests, which
    /// `reset` runs through the mail worker's half as the worker would.
    final class Outbox: @unchecked Sendable {  // @unchecked: used from the test's thread only.
        var mails: [AccountMail] = []
        var resetRequests: [PasswordResetRequest] = []
        func enqueue(_ mail: AccountMail, _ connection: any DatabaseConnection) throws { mails.append(mail) }
        func enqueue(_ request: PasswordResetRequest, _ connection: any DatabaseConnection) throws { resetRequests.append(request) }

        /// `POST /v1/password-resets`, then the worker's look-up: the mail, if an account has the address.
        func reset(_ email: String, _ accounts: Accounts) throws {
            try accounts.requestPasswordReset(email: email, enqueue: enqueue)
            if let request = resetRequests.last, let mail = try accounts.issuePasswordReset(request) { mails.append(mail) }
        }
    }

    @Test func aResetTokenWorksOnceWithinAnHourAndEndsEverySession() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("ana")
        let outbox = Outbox()
        try outbox.reset("ANA@example.com", fixture.accounts)
        let mail = try #require(outbox.mails.first)
        #expect(mail.purpose == .resetPassword && mail.userID == signedIn.account.id)
        let token = fixture.accounts.token(for: mail)
        #expect(try fixture.rows("SELECT token_hash FROM account_tokens").map { try $0.decode("token_hash", as: String.self) }
                == [AccountTokenMint.storageKey(token)], "only the token's hash is stored")

        fixture.clock.advance(minutes: 59)
        try fixture.accounts.resetPassword(token: token, password: "a-new-password")
        #expect(throws: AuthError.invalidSession) { try fixture.accounts.authenticate(token: signedIn.token.value) }
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: token, password: "another-password") }
        _ = try fixture.accounts.logIn(login: "ana", password: "a-new-password")
    }

    @Test func aResetTokenExpiresAfterAnHour() throws {
        let fixture = try AuthFixture()
        try fixture.signUp("ana")
        let outbox = Outbox()
        try outbox.reset("ana@example.com", fixture.accounts)
        let token = fixture.accounts.token(for: try #require(outbox.mails.first))
        fixture.clock.advance(minutes: 60)
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: token, password: "a-new-password") }
        _ = try fixture.accounts.logIn(login: "ana", password: AuthFixture.password)
    }

    @Test func aNewRequestReplacesTheOldTokenAndAnUnknownAddressQueuesNothing() throws {
        let fixture = try AuthFixture()
        try fixture.signUp("ana")
        let outbox = Outbox()
        try outbox.reset("nobody@example.com", fixture.accounts)
        #expect(outbox.mails.isEmpty)
        try outbox.reset("ana@example.com", fixture.accounts)
        try outbox.reset("ana@example.com", fixture.accounts)
        #expect(outbox.mails.count == 2)
        let (first, second) = (outbox.mails[0], outbox.mails[1])
        let live = try fixture.database.read { connection in
            (try fixture.accounts.isLive(first, on: connection), try fixture.accounts.isLive(second, on: connection))
        }
        #expect(!live.0, "a queued mail of a replaced token is not sent")
        #expect(live.1)
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: fixture.accounts.token(for: first), password: "a-new-password") }
        try fixture.accounts.resetPassword(token: fixture.accounts.token(for: second), password: "a-new-password")
    }

    @Test func verificationLastsADayAndOnlyForTheAddressItWasMailedTo() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("ana")
        let outbox = Outbox()
        try fixture.accounts.requestEmailVerification(
            try fixture.accounts.authenticate(token: signedIn.token.value), enqueue: outbox.enqueue)
        let token = fixture.accounts.token(for: try #require(outbox.mails.first))
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: token, password: "a-new-password") }

        try fixture.accounts.requestEmailVerification(
            try fixture.accounts.authenticate(token: signedIn.token.value), enqueue: outbox.enqueue)
        let fresh = fixture.accounts.token(for: outbox.mails[1])
        fixture.clock.advance(minutes: 24 * 60 - 1)
        try fixture.accounts.confirmEmail(token: fresh)
        #expect(try fixture.accounts.account(id: signedIn.account.id)?.emailVerified == true)

        try fixture.accounts.requestEmailVerification(
            try fixture.accounts.authenticate(token: signedIn.token.value), enqueue: outbox.enqueue)
        fixture.clock.advance(minutes: 24 * 60)
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.confirmEmail(token: fixture.accounts.token(for: outbox.mails[2])) }
    }

    /// The probe's takeover: a reset link mailed to the old address must not work after the
    /// owner changed their email, nor after they changed their password.
    @Test func anEmailChangeOrAPasswordChangeEndsEveryResetToken() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("ana")
        let identity = try fixture.accounts.authenticate(token: signedIn.token.value)
        let outbox = Outbox()
        try outbox.reset("ana@example.com", fixture.accounts)
        let mailedToOldAddress = fixture.accounts.token(for: try #require(outbox.mails.last))
        var changes = AccountStore.ProfileChanges()
        changes.email = "ana@elsewhere.example"
        _ = try fixture.accounts.updateProfile(identity, changes, confirmation: .password(AuthFixture.password))
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: mailedToOldAddress, password: "attacker-password") }

        try outbox.reset("ana@elsewhere.example", fixture.accounts)
        let beforePasswordChange = fixture.accounts.token(for: try #require(outbox.mails.last))
        try fixture.accounts.changePassword(identity, confirmation: .password(AuthFixture.password), new: "owner-new-password")
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: beforePasswordChange, password: "attacker-password") }
        #expect(throws: AuthError.invalidCredentials) { try fixture.accounts.logIn(login: "ana", password: "attacker-password") }
        _ = try fixture.accounts.logIn(login: "ana", password: "owner-new-password")
    }

    /// A token whose address is no longer the account's does not reset it, even if it
    /// outlived the change some other way (the backstop behind ending the tokens).
    @Test func aResetTokenWorksOnlyWhileItsAddressIsTheAccounts() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("ana")
        let outbox = Outbox()
        try outbox.reset("ana@example.com", fixture.accounts)
        let token = fixture.accounts.token(for: try #require(outbox.mails.last))
        try fixture.execute("UPDATE users SET email = 'ana@elsewhere.example', email_key = 'ana@elsewhere.example' WHERE id = \(signedIn.account.id)")
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: token, password: "attacker-password") }
    }

    /// The request does the same thing for every address: one queued request, the address's
    /// key and a nonce, nothing looked up; only the worker learns whether an account has it.
    @Test func aResetRequestQueuesTheSameWorkWhetherOrNotTheAddressHasAnAccount() throws {
        let fixture = try AuthFixture()
        try fixture.signUp("ana")
        let outbox = Outbox()
        try fixture.accounts.requestPasswordReset(email: "ana@example.com", enqueue: outbox.enqueue)
        try fixture.accounts.requestPasswordReset(email: "nobody@example.com", enqueue: outbox.enqueue)
        #expect(outbox.resetRequests.map(\.emailKey) == ["ana@example.com", "nobody@example.com"])
        #expect(try fixture.rows("SELECT token_hash FROM account_tokens WHERE purpose = 'reset_password'").isEmpty, "no token before the worker")
        #expect(try fixture.accounts.issuePasswordReset(outbox.resetRequests[1]) == nil)
        let mail = try #require(try fixture.accounts.issuePasswordReset(outbox.resetRequests[0]))
        #expect(try fixture.accounts.issuePasswordReset(outbox.resetRequests[0]) == mail, "a retried job makes the same token")
    }

    @Test func tokensAreRebuiltFromTheNonceOnlyWithTheKey() throws {
        let key = { (byte: UInt8) in AccountTokenMint(key: .init(bytes: [UInt8](repeating: byte, count: 32))) }
        #expect(key(1).token(.resetPassword, nonce: "n") == key(1).token(.resetPassword, nonce: "n"))
        #expect(key(1).token(.resetPassword, nonce: "n") != key(2).token(.resetPassword, nonce: "n"))
        #expect(key(1).token(.resetPassword, nonce: "n") != key(1).token(.verifyEmail, nonce: "n"), "a purpose of its own")
        #expect(key(1).token(.resetPassword, nonce: "n").count == 43)
    }
}

extension RecoveryTests {
    @Test func aResetLiftsTheLockoutOfTheAccount() throws {
        let fixture = try AuthFixture { $0.lockout.threshold = 2 }
        try fixture.signUp("ana")
        for _ in 0..<2 { #expect(throws: AuthError.invalidCredentials) { try fixture.accounts.logIn(login: "ana", password: "wrong-password") } }
        #expect(throws: (any Error).self) { try fixture.accounts.logIn(login: "ana", password: AuthFixture.password) }
        let outbox = Outbox()
        try outbox.reset("ana@example.com", fixture.accounts)
        try fixture.accounts.resetPassword(token: fixture.accounts.token(for: try #require(outbox.mails.first)), password: "a-new-password")
        _ = try fixture.accounts.logIn(login: "ana", password: "a-new-password")
    }
}
