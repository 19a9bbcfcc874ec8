import Auth
import Storage
import Testing

/// Issue 43's account pre-hijacking and replay findings, against the domain on both databases:
/// only vouched-for addresses are kept, a link needs a fresh proof, a completed reset removes
/// what was linked before the mailbox was proven, a nonce signs in once, and failed passwords
/// never shut out a provider sign-in.
@Suite struct IdentityTrustTests {
    static let details = Accounts.NewAccountDetails(username: nil, displayName: nil, locale: .english)

    func identity(_ provider: IdentityProvider = .google, subject: String = "g-1", email: String? = nil, verified: Bool = false,
                  nonce: OneTimeNonce? = nil) -> VerifiedIdentity {
        VerifiedIdentity(provider: provider, subject: subject, email: email, emailVerified: verified, name: "Someone", nonce: nonce)
    }

    func vouched(_ fixture: AuthFixture, _ subject: String) throws -> Bool? {
        try fixture.value("SELECT vouched FROM identities WHERE subject = \(subject)", as: Bool.self)
    }

    @Test func anUnverifiedProviderAddressIsNeitherKeptNorComparedWithAccounts() throws {
        let fixture = try AuthFixture()
        // Google with email_verified false, for an address nobody has yet: the account gets none.
        let made = try fixture.accounts.signIn(with: identity(email: "victim@example.com"), newAccount: Self.details)
        #expect(made.created)
        #expect(made.signedIn.account.email.hasSuffix("@users.invalid"))
        #expect(!made.signedIn.account.emailVerified)
        #expect(try vouched(fixture, "g-1") == false)
        // So the real owner signs up with it afterwards, and the attacker's account has nothing of theirs.
        _ = try fixture.signUp("victim", email: "victim@example.com")
        // An unverified address that is an account's refuses nothing and links nothing either.
        let other = try fixture.accounts.signIn(with: identity(.facebook, subject: "fb-9", email: "victim@example.com"), newAccount: Self.details)
        #expect(other.created && other.signedIn.account.email.hasSuffix("@users.invalid"))
        // A vouched-for one is kept, verified, and refused when it is an account's.
        let apple = try fixture.accounts.signIn(with: identity(.apple, subject: "a-1", email: "kalle@example.org", verified: true), newAccount: Self.details)
        #expect(apple.signedIn.account.email == "kalle@example.org" && apple.signedIn.account.emailVerified)
        #expect(try vouched(fixture, "a-1") == true)
        #expect(throws: AuthError.accountExists) {
            try fixture.accounts.signIn(with: identity(.apple, subject: "a-2", email: "VICTIM@example.com", verified: true), newAccount: Self.details)
        }
    }

    @Test func linkingNeedsTheRightProofBesidesTheSession() throws {
        let fixture = try AuthFixture()
        let owner = try fixture.accounts.authenticate(token: try fixture.signUp("ana").token.value)
        let google = identity(subject: "g-ana")
        #expect(throws: AuthError.confirmationRefused(field: "currentPassword")) { try fixture.accounts.link(google, to: owner, proof: nil) }
        #expect(throws: AuthError.confirmationRefused(field: "currentPassword")) {
            try fixture.accounts.link(google, to: owner, proof: .password("not-the-password"))
        }
        #expect(throws: AuthError.confirmationRefused(field: "currentPassword")) {
            try fixture.accounts.link(google, to: owner, proof: .identity(identity(.apple, subject: "a-unlinked")))
        }
        var told: [String] = []
        try fixture.accounts.link(google, to: owner, proof: .password(AuthFixture.password)) { account, _ in told.append(account.id) }
        #expect(told == [owner.userID], "the link's mail is queued in its transaction")
        #expect(try fixture.accounts.signInMethods(userID: owner.userID).identities == [.google])
        #expect(try vouched(fixture, "g-ana") == false, "ana's address is not verified yet")

        // An account without a password proves itself with a linked provider's fresh token.
        let made = try fixture.accounts.signIn(with: identity(.apple, subject: "a-bo"), newAccount: Self.details)
        let bo = try fixture.accounts.authenticate(token: made.signedIn.token.value)
        let facebook = identity(.facebook, subject: "fb-bo")
        #expect(throws: AuthError.confirmationRefused(field: "proof")) { try fixture.accounts.link(facebook, to: bo, proof: nil) }
        #expect(throws: AuthError.confirmationRefused(field: "proof")) { try fixture.accounts.link(facebook, to: bo, proof: .password("anything-at-all")) }
        #expect(throws: AuthError.confirmationRefused(field: "proof")) {
            try fixture.accounts.link(facebook, to: bo, proof: .identity(identity(.google, subject: "g-ana")))
        }
        try fixture.accounts.link(facebook, to: bo, proof: .identity(identity(.apple, subject: "a-bo")))
        #expect(try fixture.accounts.signInMethods(userID: bo.userID).identities == [.apple, .facebook])
        // And sets its first password only so.
        #expect(throws: AuthError.confirmationRefused(field: "proof")) { try fixture.accounts.changePassword(bo, confirmation: nil, new: "bo-first-password") }
        try fixture.accounts.changePassword(bo, confirmation: .identity(identity(.facebook, subject: "fb-bo")), new: "bo-first-password")
        #expect(try fixture.accounts.signInMethods(userID: bo.userID).hasPassword)
    }

    /// The pre-hijack: the attacker signs up first with the victim's address and links their own
    /// Google; the victim proves the mailbox by a reset, and the attacker's way in is gone.
    @Test func aCompletedResetRemovesWhatWasLinkedBeforeTheMailboxWasProven() throws {
        let fixture = try AuthFixture()
        let attackersSession = try fixture.signUp("victim", email: "victim@example.com").token.value
        let attacker = try fixture.accounts.authenticate(token: attackersSession)
        let account = attacker.userID
        try fixture.accounts.link(identity(subject: "g-attacker"), to: attacker, proof: .password(AuthFixture.password))

        let outbox = RecoveryTests.Outbox()
        try outbox.reset("victim@example.com", fixture.accounts)
        try fixture.accounts.resetPassword(token: fixture.accounts.token(for: try #require(outbox.mails.last)), password: "the-owners-password")
        #expect(try fixture.accounts.signInMethods(userID: account).identities == [])
        #expect(throws: AuthError.invalidSession) { try fixture.accounts.authenticate(token: attackersSession) }
        // The attacker's Google makes a new, empty account now; it never reaches the victim's.
        let back = try fixture.accounts.signIn(with: identity(subject: "g-attacker"), newAccount: Self.details)
        #expect(back.created && back.signedIn.account.id != account)
        // The reset verified the address: what the owner links from now on survives the next one.
        let owner = try fixture.accounts.logIn(login: "victim", password: "the-owners-password")
        #expect(owner.account.emailVerified)
        let ownerIdentity = try fixture.accounts.authenticate(token: owner.token.value)
        try fixture.accounts.link(identity(.apple, subject: "a-owner"), to: ownerIdentity, proof: .password("the-owners-password"))
        try outbox.reset("victim@example.com", fixture.accounts)
        try fixture.accounts.resetPassword(token: fixture.accounts.token(for: try #require(outbox.mails.last)), password: "another-password-1")
        #expect(try fixture.accounts.signInMethods(userID: account).identities == [.apple])
    }

    @Test func aNonceSignsInOnceUntilItsTokenExpires() throws {
        let fixture = try AuthFixture()
        let expiry = fixture.clock.nowMillis() + 600_000
        let first = identity(.apple, subject: "a-n", nonce: OneTimeNonce(claim: "abc", expiresAtMillis: expiry))
        _ = try fixture.accounts.signIn(with: first, newAccount: Self.details)
        #expect(throws: AuthError.invalidCredentials) { try fixture.accounts.signIn(with: first, newAccount: Self.details) }
        // The same claim from another provider is another nonce.
        _ = try fixture.accounts.signIn(with: identity(.google, subject: "g-n", nonce: OneTimeNonce(claim: "abc", expiresAtMillis: expiry)),
                                        newAccount: Self.details)
        // Used as a confirmation, too: once.
        let caller = try fixture.accounts.authenticate(token: try fixture.accounts.signIn(with: identity(.apple, subject: "a-n"), newAccount: Self.details)
            .signedIn.token.value)
        let proof = identity(.apple, subject: "a-n", nonce: OneTimeNonce(claim: "def", expiresAtMillis: expiry))
        try fixture.accounts.link(identity(.facebook, subject: "fb-n"), to: caller, proof: .identity(proof))
        #expect(throws: AuthError.confirmationRefused(field: "proof")) {
            try fixture.accounts.link(identity(.google, subject: "g-other"), to: caller, proof: .identity(proof))
        }
        // Kept until the token expires, then purged.
        #expect(try fixture.value("SELECT COUNT(*) FROM used_nonces", as: Int.self) == 3)
        fixture.clock.advance(millis: 600_001)
        _ = try fixture.accounts.purgeExpired()
        #expect(try fixture.value("SELECT COUNT(*) FROM used_nonces", as: Int.self) == 0)
    }

    @Test func failedPasswordsNeverShutOutAProviderSignIn() throws {
        let fixture = try AuthFixture()
        let made = try fixture.accounts.signIn(with: identity(.apple, subject: "a-locked"), newAccount: Self.details)
        for _ in 0..<12 {
            _ = try? fixture.accounts.logIn(login: made.signedIn.account.username, password: "guessing-wrongly")
        }
        #expect(throws: AuthError.self) { try fixture.accounts.logIn(login: made.signedIn.account.username, password: "guessing-wrongly") }
        let again = try fixture.accounts.signIn(with: identity(.apple, subject: "a-locked"), newAccount: Self.details)
        #expect(!again.created && again.signedIn.account.id == made.signedIn.account.id)
    }
}
