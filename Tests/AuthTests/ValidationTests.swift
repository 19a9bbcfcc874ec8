import Testing
@testable import Auth

/// The sign-up input rules of API.md, checked through `Accounts.signUp` (what a client
/// sees) with the `field` each error names.
@Suite struct ValidationTests {
    let fixture: AuthFixture
    init() throws { fixture = try AuthFixture() }

    private func signUp(username: String = "rallyfan", email: String = "fan@example.com",
                        password: String = AuthFixture.password, displayName: String? = nil) throws -> Accounts.SignedIn {
        try fixture.accounts.signUp(username: username, email: email, password: password, displayName: displayName)
    }

    // MARK: Username

    @Test(arguments: ["abc", String(repeating: "a", count: 30), "Seb_Loeb.9", "___", "...", "A1b2C3"])
    func acceptsUsernames(_ username: String) throws {
        let signedIn = try signUp(username: username)
        // The case typed is kept.
        #expect(signedIn.account.username == username)
    }

    @Test(arguments: [
        "", "ab", String(repeating: "a", count: 31),
        "seb loeb", "seb-loeb", "seb@loeb", "séb", "Ogier🏁", "tab\tname", "nul\u{0}name", " abc", "abc ",
    ])
    func refusesUsernames(_ username: String) throws {
        #expect(validationField { _ = try signUp(username: username) } == "username")
        #expect(try fixture.value("SELECT COUNT(*) FROM users", as: Int.self) == 0)
    }

    // MARK: Password

    @Test(arguments: [
        String(repeating: "p", count: 8),
        String(repeating: "p", count: 72),
        String(repeating: "é", count: 4),          // 4 characters, 8 bytes
        String(repeating: "€", count: 24),         // 24 characters, 72 bytes
        "Ралли-🏁-Sébastien",
    ])
    func acceptsPasswordsOf8To72Bytes(_ password: String) throws {
        let signedIn = try signUp(password: password)
        // And the exact password logs in.
        let again = try fixture.accounts.logIn(login: "rallyfan", password: password)
        #expect(again.account.id == signedIn.account.id)
    }

    @Test(arguments: [
        "",
        String(repeating: "p", count: 7),
        String(repeating: "p", count: 73),
        "éééa",                                    // 4 characters but 7 bytes
        String(repeating: "€", count: 25),         // 25 characters but 75 bytes
        String(repeating: "p", count: 71) + "é",   // 72 characters, 73 bytes
    ])
    func refusesPasswordsOutside8To72Bytes(_ password: String) throws {
        #expect(validationField { _ = try signUp(password: password) } == "password")
    }

    @Test func refusesNULInPassword() throws {
        #expect(validationField { _ = try signUp(password: "password\u{0}123") } == "password")
        #expect(validationField { _ = try signUp(password: "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}") } == "password")
    }

    // MARK: Email

    @Test(arguments: ["a@b.co", "Seb.Loeb+rally@Example.COM", "x@sub.domain.example", "o'neil@example.ie", "ü@exämple.de"])
    func acceptsEmails(_ email: String) throws {
        let signedIn = try signUp(email: email)
        // Stored as typed.
        #expect(signedIn.account.email == email)
        #expect(!signedIn.account.emailVerified)
    }

    @Test(arguments: [
        "", "plain", "@example.com", "a@", "a@b", "a@@b.com", "a@b@c.com", "a b@example.com", "a@exa mple.com",
        "a@.example.com", "a@example..com", "a@example.com.", "a@-example.com", "a@example-.com",
        " a@example.com", "a@example.com\n", "a\u{0}@example.com",
        String(repeating: "a", count: 250) + "@b.co",
    ])
    func refusesEmails(_ email: String) throws {
        #expect(validationField { _ = try signUp(email: email) } == "email")
    }

    // MARK: Display name

    @Test func displayNameDefaultsToUsername() throws {
        let signedIn = try signUp(username: "SebLoeb", displayName: nil)
        #expect(signedIn.account.displayName == "SebLoeb")
    }

    @Test func displayNameIsStoredTrimmed() throws {
        let signedIn = try signUp(displayName: "  \t Sébastien Loeb \n ")
        #expect(signedIn.account.displayName == "Sébastien Loeb")
        let stored = try #require(try fixture.accounts.account(id: signedIn.account.id))
        #expect(stored.displayName == "Sébastien Loeb")
    }

    @Test(arguments: ["x", String(repeating: "n", count: 100), String(repeating: "🏁", count: 100), String(repeating: "é", count: 100)])
    func acceptsDisplayNamesOf1To100Characters(_ name: String) throws {
        #expect(try signUp(displayName: name).account.displayName == name)
    }

    @Test(arguments: ["", "   ", "\n\t", String(repeating: "n", count: 101), String(repeating: "🏁", count: 101), "Seb\u{0}"])
    func refusesDisplayNames(_ name: String) throws {
        #expect(validationField { _ = try signUp(displayName: name) } == "displayName")
    }

    /// When several fields are wrong, the first the client would fix is named, and nothing is stored.
    @Test func nothingIsStoredWhenAnyFieldIsInvalid() throws {
        #expect(validationField { _ = try signUp(username: "ok_name", email: "nope", password: "short") } != nil)
        #expect(try fixture.value("SELECT COUNT(*) FROM users", as: Int.self) == 0)
        #expect(try fixture.value("SELECT COUNT(*) FROM sessions", as: Int.self) == 0)
    }

    /// `pacenote user create` applies the same rules.
    @Test func createAccountAppliesTheSameRules() throws {
        #expect(validationField { _ = try fixture.accounts.createAccount(username: "x", email: "x@example.com", password: AuthFixture.password, role: .admin) } == "username")
        #expect(validationField { _ = try fixture.accounts.createAccount(username: "admin", email: "x@example.com", password: "short", role: .admin) } == "password")
        let admin = try fixture.accounts.createAccount(username: "admin", email: "admin@example.com", password: AuthFixture.password, role: .admin)
        #expect(admin.role == .admin)
        #expect(admin.displayName == "admin")
        #expect(try fixture.value("SELECT COUNT(*) FROM sessions", as: Int.self) == 0)
    }
}
