import Foundation
import Testing
@testable import Auth
import Storage

/// Two servers on one database (two `Accounts`, each with its own session cache): a session
/// ended through one is refused by the other once its cached lookup is half a second old,
/// whatever ended it. The server that ended it refuses it at once.
@Suite struct SessionsAcrossServersTests {
    let fixture: AuthFixture
    /// The second server.
    let other: Accounts

    init() throws {
        fixture = try AuthFixture()
        other = Accounts(database: fixture.database, configuration: fixture.configuration, clock: fixture.clock)
    }

    /// Caches `token` on the other server, ends it through the first with `end`, then checks
    /// the first refuses it at once and the other exactly when its cached lookup is
    /// `sessionCacheMillis` (half a second) old.
    private func expectEndedEverywhere(_ token: SessionToken, by end: () throws -> Void) throws {
        let ttl = fixture.configuration.sessionCacheMillis
        #expect(ttl == 500)
        _ = try other.authenticate(token: token.value)
        fixture.clock.advance(millis: 100)
        try end()
        #expect(throws: AuthError.invalidSession) { try fixture.accounts.authenticate(token: token.value) }
        fixture.clock.advance(millis: ttl - 101)
        #expect(throws: Never.self, "the other server's lookup is 499 ms old: still cached") { try other.authenticate(token: token.value) }
        fixture.clock.advance(millis: 1)
        #expect(throws: AuthError.invalidSession, "400 ms after the revocation, half a second after the lookup") { try other.authenticate(token: token.value) }
    }

    @Test func logOut() throws {
        let signedIn = try fixture.signUp("leaver")
        let identity = try fixture.accounts.authenticate(token: signedIn.token.value)
        try expectEndedEverywhere(signedIn.token) { try fixture.accounts.logOut(identity) }
    }

    @Test func logOutEverywhere() throws {
        let signedIn = try fixture.signUp("careful")
        let identity = try fixture.accounts.authenticate(token: signedIn.token.value)
        try expectEndedEverywhere(signedIn.token) { try fixture.accounts.logOutEverywhere(identity) }
    }

    @Test func passwordChangeEndsTheOtherSessions() throws {
        let phone = try fixture.signUp("changer")
        let laptop = try fixture.accounts.logIn(login: "changer", password: AuthFixture.password)
        let identity = try fixture.accounts.authenticate(token: laptop.token.value)
        try expectEndedEverywhere(phone.token) {
            try fixture.accounts.changePassword(identity, confirmation: .password(AuthFixture.password), new: "a-new-password-2015")
        }
        #expect(throws: Never.self, "the session that changed it stays") { try other.authenticate(token: laptop.token.value) }
    }

    @Test func accountDeletion() throws {
        let signedIn = try fixture.signUp("goner")
        let identity = try fixture.accounts.authenticate(token: signedIn.token.value)
        try expectEndedEverywhere(signedIn.token) { try fixture.accounts.deleteAccount(identity, confirmation: .password(AuthFixture.password)) }
    }

    @Test func ban() throws {
        let signedIn = try fixture.signUp("banned")
        let account = try #require(try fixture.accounts.account(id: signedIn.account.id))
        try expectEndedEverywhere(signedIn.token) {
            try fixture.accounts.changeStanding { connection in
                try fixture.accounts.endSessions(userID: account.id, on: connection)
                _ = try AccountStore().setBan(fixture.clock.nowMillis(), reason: "spam", of: account, now: fixture.clock.nowMillis(), on: connection)
            }
        }
    }

    /// A lookup that read the session before a logout on the same server, and reaches the
    /// cache after it, does not cache the ended session.
    @Test func aLookupOvertakenByALogoutIsNotCached() throws {
        let cache = SessionCache(ttlMillis: 1_000)
        let identity = Accounts.Identity(userID: "u", userSeq: 1, role: .user, sessionKey: "k")
        let before = cache.generation
        cache.remove(key: "k")
        cache.store(identity, expiresAt: 10_000, now: 0, since: before)
        #expect(cache.identity(forKey: "k", now: 1) == nil)
        cache.store(identity, expiresAt: 10_000, now: 0, since: cache.generation)
        #expect(cache.identity(forKey: "k", now: 1) == identity)
    }
}
