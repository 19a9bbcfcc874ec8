import Foundation
import Testing
@testable import Auth
import Storage

/// Session tokens: what is stored, how they end, expiry and extension on use.
@Suite struct SessionTests {
    let fixture: AuthFixture
    var accounts: Accounts { fixture.accounts }
    /// The default lifetime, one year.
    var lifetime: Int64 { fixture.configuration.sessionLifetimeMillis }
    init() throws { fixture = try AuthFixture() }

    @Test func theDefaultLifetimeIsAYear() {
        #expect(Accounts.Configuration().sessionLifetimeMillis == 365 * 24 * 3_600 * 1_000)
    }

    @Test func storageKeyIsTheHexSHA256OfTheToken() {
        // FIPS 180-2 test vectors.
        #expect(SessionToken(value: "abc").storageKey == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SessionToken(value: "").storageKey == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func tokensAre256RandomBitsInBase64URL() throws {
        let tokens = try (0..<5).map { try fixture.signUp("driver\($0)").token.value }
        #expect(Set(tokens).count == 5)
        for token in tokens {
            #expect(token.count == 43)  // 32 bytes, unpadded base64url
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    @Test func tokensAreRedactedWhenPrinted() throws {
        let token = try fixture.signUp("seb").token
        #expect(!"\(token)".contains(token.value))
        #expect(!String(reflecting: token).contains(token.value))
    }

    @Test func onlyTheTokensSHA256IsStored() throws {
        let signedUp = try fixture.signUp("seb")
        let loggedIn = try accounts.logIn(login: "seb", password: AuthFixture.password)

        let stored = try fixture.rows("SELECT token_hash FROM sessions ORDER BY created_at").map { try $0.decode("token_hash", as: String.self) }
        #expect(Set(stored) == [signedUp.token.storageKey, loggedIn.token.storageKey])
        for key in stored {
            #expect(key.count == 64)
            #expect(key.allSatisfy { "0123456789abcdef".contains($0) })
        }
        // The identity carries the same key, not the token.
        #expect(try accounts.authenticate(token: loggedIn.token.value).sessionKey == loggedIn.token.storageKey)

        // No row of any table holds a raw token.
        let catalog: SQL = fixture.temporary.dialect == .sqlite
            ? "SELECT name FROM sqlite_master WHERE type = 'table'"
            : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()"
        let tables = try fixture.rows(catalog).map { try $0.decode("name", as: String.self) }
        #expect(tables.contains("sessions") && tables.contains("users"))
        for table in tables {
            for row in try fixture.rows("SELECT * FROM \(unsafe: "\"\(table)\"")") {
                for value in row.values {
                    let text: String
                    switch value {
                    case .text(let string): text = string
                    case .blob(let bytes): text = String(decoding: bytes, as: UTF8.self)
                    default: continue
                    }
                    for token in [signedUp.token.value, loggedIn.token.value] {
                        #expect(!text.contains(token), "table \(table) holds a raw token")
                    }
                }
            }
        }

        // Nor do the database's files (main file and write-ahead log), where the hash is. Only
        // SQLite's files are the test's to read; PostgreSQL's belong to the cluster's server.
        guard let sqlite = fixture.temporary.sqlite else { return }
        var hashFound = false
        for suffix in ["", "-wal"] {
            let path = sqlite.path + suffix
            guard let bytes = FileManager.default.contents(atPath: path) else { continue }
            for token in [signedUp.token.value, loggedIn.token.value] {
                #expect(bytes.range(of: Data(token.utf8)) == nil, "\(path) holds a raw token")
            }
            if bytes.range(of: Data(signedUp.token.storageKey.utf8)) != nil { hashFound = true }
        }
        // The search itself works: the stored hash is found in the files.
        #expect(hashFound)
    }

    @Test func aStoredHashIsNotAToken() throws {
        let signedIn = try fixture.signUp("seb")
        // Someone who reads the database gets nothing they can present.
        #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: signedIn.token.storageKey) }
    }

    @Test(arguments: ["", "garbage", "Bearer x", String(repeating: "A", count: 43)])
    func unknownTokensAreInvalidSession(_ token: String) throws {
        try fixture.signUp("seb")
        #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: token) }
    }

    @Test func logOutEndsThisSessionAtOnceAndOnlyIt() throws {
        let phone = try fixture.signUp("seb")
        let tablet = try accounts.logIn(login: "seb", password: AuthFixture.password)
        let identity = try accounts.authenticate(token: phone.token.value)

        try accounts.logOut(identity)
        #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: phone.token.value) }
        #expect(fixture.tokenWorks(tablet.token))
        // Logging out twice is harmless.
        try accounts.logOut(identity)
    }

    @Test func logOutEverywhereEndsEverySessionOfTheAccountOnly() throws {
        let phone = try fixture.signUp("seb")
        let tablet = try accounts.logIn(login: "seb", password: AuthFixture.password)
        let laptop = try accounts.logIn(login: "SEB@example.com", password: AuthFixture.password)
        let other = try fixture.signUp("ogier")

        try accounts.logOutEverywhere(try accounts.authenticate(token: tablet.token.value))
        for token in [phone.token, tablet.token, laptop.token] {
            #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: token.value) }
        }
        #expect(try fixture.sessionCount(userID: phone.account.id) == 0)
        #expect(fixture.tokenWorks(other.token))
        // Logging in again works.
        #expect(fixture.tokenWorks(try accounts.logIn(login: "seb", password: AuthFixture.password).token))
    }

    @Test func anUnusedSessionExpiresAfterItsLifetime() throws {
        let used = try fixture.signUp("seb")
        let unused = try fixture.signUp("ogier")
        let start = fixture.clock.nowMillis()
        #expect(try fixture.value("SELECT expires_at FROM sessions WHERE user_id = \(unused.account.id)", as: Int64.self) == start + lifetime)
        #expect(try fixture.value("SELECT created_at FROM sessions WHERE user_id = \(unused.account.id)", as: Int64.self) == start)

        fixture.clock.advance(millis: lifetime - 1)
        #expect(fixture.tokenWorks(used.token))              // and this use extends it
        fixture.clock.advance(millis: 1)
        #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: unused.token.value) }
        #expect(fixture.tokenWorks(used.token))
    }

    @Test func aSessionIsNotExtendedBeforeHalfItsLifetime() throws {
        let signedIn = try fixture.signUp("seb")
        let expiresAt = fixture.clock.nowMillis() + lifetime

        fixture.clock.advance(millis: lifetime / 2)          // exactly half left: not yet
        #expect(fixture.tokenWorks(signedIn.token))
        #expect(try fixture.value("SELECT expires_at FROM sessions", as: Int64.self) == expiresAt)

        fixture.clock.advance(millis: lifetime / 2)          // so it ends on schedule
        #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: signedIn.token.value) }
    }

    @Test func aSessionUsedAfterHalfItsLifetimeIsExtended() throws {
        let signedIn = try fixture.signUp("seb")

        fixture.clock.advance(millis: lifetime / 2 + 1)
        let usedAt = fixture.clock.nowMillis()
        #expect(fixture.tokenWorks(signedIn.token))
        #expect(try fixture.value("SELECT expires_at FROM sessions", as: Int64.self) == usedAt + lifetime)

        // Past the original expiry it still works, and keeps working while it is used.
        fixture.clock.advance(millis: lifetime - 1)
        #expect(fixture.tokenWorks(signedIn.token))
        fixture.clock.advance(millis: lifetime - 1)
        #expect(fixture.tokenWorks(signedIn.token))

        // Left unused for a whole lifetime, it ends.
        fixture.clock.advance(millis: lifetime)
        #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: signedIn.token.value) }
    }

    @Test func shortLifetimesFollowTheConfiguration() throws {
        let fixture = try AuthFixture { $0.sessionLifetimeMillis = 60_000 }
        let signedIn = try fixture.signUp("seb")
        fixture.clock.advance(seconds: 31)
        #expect(fixture.tokenWorks(signedIn.token))            // extended to t = 91 s
        fixture.clock.advance(seconds: 59)
        #expect(fixture.tokenWorks(signedIn.token))            // t = 90 s, extended to t = 150 s
        fixture.clock.advance(seconds: 60)
        #expect(throws: AuthError.invalidSession) { try fixture.accounts.authenticate(token: signedIn.token.value) }
    }

    @Test func purgeRemovesOnlyExpiredSessions() throws {
        let fixture = try AuthFixture { $0.sessionLifetimeMillis = 60_000 }
        try fixture.signUp("seb")
        fixture.clock.advance(seconds: 30)
        let fresh = try fixture.signUp("ogier")
        #expect(try fixture.accounts.purgeExpired() == 0)
        fixture.clock.advance(seconds: 30)
        #expect(try fixture.accounts.purgeExpired() == 1)
        #expect(try fixture.value("SELECT COUNT(*) FROM sessions", as: Int.self) == 1)
        #expect(fixture.tokenWorks(fresh.token))
    }
}

@Suite struct SessionCacheTests {
    @Test func aCachedSessionStillEndsAtOnceOnLogout() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("cached")
        let identity = try fixture.accounts.authenticate(token: signedIn.token.value)
        #expect(try fixture.accounts.authenticate(token: signedIn.token.value) == identity, "served from the cache")
        try fixture.accounts.logOut(identity)
        #expect(throws: AuthError.invalidSession) { try fixture.accounts.authenticate(token: signedIn.token.value) }
    }

    @Test func aRoleChangeReachesACachedSessionAtOnce() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("promoted")
        #expect(try fixture.accounts.authenticate(token: signedIn.token.value).role == .user)
        _ = try fixture.accounts.setRole(.moderator, idOrUsername: "promoted")
        #expect(try fixture.accounts.authenticate(token: signedIn.token.value).role == .moderator)
    }

    @Test func anotherProcessesWriteAppliesWithinASecond() throws {
        let fixture = try AuthFixture()
        let signedIn = try fixture.signUp("external")
        _ = try fixture.accounts.authenticate(token: signedIn.token.value)
        try fixture.execute("DELETE FROM sessions")
        #expect(throws: Never.self) { try fixture.accounts.authenticate(token: signedIn.token.value) }
        fixture.clock.advance(seconds: 1)
        #expect(throws: AuthError.invalidSession) { try fixture.accounts.authenticate(token: signedIn.token.value) }
    }
}
