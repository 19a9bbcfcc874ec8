import Storage
import Testing
@testable import Auth

/// Email verification and password reset (API.md), with a manual clock for the lifetimes.
struct RecoveryTests {
    /// Queues nothing; remembers the mails the calls asked for.
    final class Outbox: @unchecked Sendable {  // @unchecked: used from the test's thread only.
        var mails: [AccountMail] = []
        func enqueue(_ mail: AccountMail, _ connection: any DatabaseConnection) throws { mails.append(mail) }
    }

    @Test func aResetTokenWorksOnceWithinAnHourAndEndsEverySession() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("ana")
        let outbox = Outbox()
        try fixture.accounts.requestPasswordReset(email: "ANA@example.com", enqueue: outbox.enqueue)
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
        try fixture.accounts.requestPasswordReset(email: "ana@example.com", enqueue: outbox.enqueue)
        let token = fixture.accounts.token(for: try #require(outbox.mails.first))
        fixture.clock.advance(minutes: 60)
        #expect(throws: AuthError.invalidToken) { try fixture.accounts.resetPassword(token: token, password: "a-new-password") }
        _ = try fixture.accounts.logIn(login: "ana", password: AuthFixture.password)
    }

    @Test func aNewRequestReplacesTheOldTokenAndAnUnknownAddressQueuesNothing() throws {
        let fixture = try AuthFixture()
        try fixture.signUp("ana")
        let outbox = Outbox()
        try fixture.accounts.requestPasswordReset(email: "nobody@example.com", enqueue: outbox.enqueue)
        #expect(outbox.mails.isEmpty)
        try fixture.accounts.requestPasswordReset(email: "ana@example.com", enqueue: outbox.enqueue)
        try fixture.accounts.requestPasswordReset(email: "ana@example.com", enqueue: outbox.enqueue)
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
        try fixture.accounts.requestPasswordReset(email: "ana@example.com", enqueue: outbox.enqueue)
        try fixture.accounts.resetPassword(token: fixture.accounts.token(for: try #require(outbox.mails.first)), password: "a-new-password")
        _ = try fixture.accounts.logIn(login: "ana", password: "a-new-password")
    }
}
