import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Auth
import Storage

/// Sign-up, login, profile, roles, password change, deletion and bans, as a client sees them.
@Suite struct AccountsTests {
    let fixture: AuthFixture
    var accounts: Accounts { fixture.accounts }
    init() throws { fixture = try AuthFixture() }

    // MARK: Sign-up

    @Test func signUpAnswersTheAccountAndAWorkingSession() throws {
        let signedIn = try fixture.signUp("SebLoeb", email: "Seb@Example.com", displayName: "Sébastien")
        let account = signedIn.account
        #expect(account.username == "SebLoeb")
        #expect(account.email == "Seb@Example.com")
        #expect(!account.emailVerified)
        #expect(account.displayName == "Sébastien")
        #expect(account.role == .user)
        #expect(account.notificationSettings == .defaults)
        #expect(account.notificationSettings == NotificationSettings(newVideos: true, myActivity: true, followingActivity: false))
        #expect(account.followersCount == 0 && account.followingCount == 0 && account.videosCount == 0)
        #expect(account.createdAt == fixture.clock.nowMillis())
        #expect(account.bannedAt == nil)
        #expect(!account.id.isEmpty)

        // What was answered is what is stored.
        #expect(try accounts.account(id: account.id) == account)
        let identity = try accounts.authenticate(token: signedIn.token.value)
        #expect(identity.userID == account.id)
        #expect(identity.role == .user)
    }

    @Test func thePasswordIsStoredAsABcryptHashOnly() throws {
        let signedIn = try fixture.signUp("seb")
        let hash = try #require(try fixture.value("SELECT password_hash FROM users WHERE id = \(signedIn.account.id)", as: String.self))
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(!hash.contains(AuthFixture.password))
    }

    @Test(arguments: ["SEBLOEB", "sebloeb", "SebLoeb", "sEBlOEB"])
    func usernamesAreUniqueIgnoringCase(_ second: String) throws {
        try fixture.signUp("SebLoeb", email: "first@example.com")
        #expect(throws: AuthError.usernameTaken) {
            try fixture.signUp(second, email: "second@example.com")
        }
        #expect(try fixture.value("SELECT COUNT(*) FROM users", as: Int.self) == 1)
    }

    @Test(arguments: ["seb@example.com", "SEB@EXAMPLE.COM", "Seb@Example.Com"])
    func emailsAreUniqueIgnoringCase(_ second: String) throws {
        try fixture.signUp("first", email: "seb@example.com")
        #expect(throws: AuthError.emailTaken) {
            try fixture.signUp("second", email: second)
        }
        #expect(try fixture.value("SELECT COUNT(*) FROM users", as: Int.self) == 1)
    }

    @Test func lookupByIdOrUsernameIgnoresCase() throws {
        let account = try fixture.signUp("SebLoeb").account
        #expect(try accounts.account(idOrUsername: account.id) == account)
        #expect(try accounts.account(idOrUsername: "sebloeb") == account)
        #expect(try accounts.account(idOrUsername: "SEBLOEB") == account)
        #expect(try accounts.account(idOrUsername: "nobody") == nil)
        #expect(try accounts.account(id: "nobody") == nil)
    }

    @Test func twentyConcurrentSignUpsAllSucceedWithDistinctIDs() throws {
        let results = Mutex<[Result<Accounts.SignedIn, any Error>]>([])
        let accounts = self.accounts
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            let result = Result {
                try accounts.signUp(username: "driver\(index)", email: "driver\(index)@example.com",
                                    password: AuthFixture.password, displayName: nil)
            }
            results.withLock { $0.append(result) }
        }
        let signedIn = try results.withLock { try $0.map { try $0.get() } }
        #expect(signedIn.count == 20)
        #expect(Set(signedIn.map(\.account.id)).count == 20)
        #expect(Set(signedIn.map(\.token.value)).count == 20)
        #expect(try fixture.value("SELECT COUNT(*) FROM users", as: Int.self) == 20)
        for each in signedIn {
            #expect(try accounts.authenticate(token: each.token.value).userID == each.account.id)
        }
    }

    @Test func concurrentSignUpsForOneUsernameLetExactlyOneWin() throws {
        let results = Mutex<[Result<Accounts.SignedIn, any Error>]>([])
        let accounts = self.accounts
        DispatchQueue.concurrentPerform(iterations: 10) { index in
            let result = Result {
                try accounts.signUp(username: index.isMultiple(of: 2) ? "Ogier" : "OGIER", email: "ogier\(index)@example.com",
                                    password: AuthFixture.password, displayName: nil)
            }
            results.withLock { $0.append(result) }
        }
        let all = results.withLock { $0 }
        #expect(all.filter { (try? $0.get()) != nil }.count == 1)
        for case .failure(let error) in all {
            #expect(error as? AuthError == .usernameTaken)
        }
    }

    // MARK: Login

    @Test(arguments: ["SebLoeb", "sebloeb", "SEBLOEB", "seb@example.com", "SEB@Example.COM"])
    func logsInByUsernameInAnyCaseOrByEmail(_ login: String) throws {
        let account = try fixture.signUp("SebLoeb", email: "Seb@Example.com").account
        let signedIn = try accounts.logIn(login: login, password: AuthFixture.password)
        #expect(signedIn.account == account)
        #expect(try accounts.authenticate(token: signedIn.token.value).userID == account.id)
    }

    @Test func eachLoginOpensItsOwnSession() throws {
        let first = try fixture.signUp("seb")
        let second = try accounts.logIn(login: "seb", password: AuthFixture.password)
        #expect(first.token.value != second.token.value)
        #expect(try fixture.sessionCount(userID: first.account.id) == 2)
        #expect(fixture.tokenWorks(first.token) && fixture.tokenWorks(second.token))
    }

    @Test func unknownUserAndWrongPasswordGetTheSameAnswer() throws {
        try fixture.signUp("seb")
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb", password: "wrong-password") }
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "nobody", password: AuthFixture.password) }
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "nobody@example.com", password: AuthFixture.password) }
        // The password is case-sensitive and not trimmed.
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb", password: AuthFixture.password.uppercased()) }
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb", password: AuthFixture.password + " ") }
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb", password: "") }
        // A failed login opens no session.
        #expect(try fixture.value("SELECT COUNT(*) FROM sessions", as: Int.self) == 1)
    }

    // MARK: Profile

    @Test func updateProfileChangesOnlyTheGivenFields() throws {
        let signedIn = try fixture.signUp("seb", email: "seb@example.com", displayName: "Seb")
        let identity = try accounts.authenticate(token: signedIn.token.value)

        var changes = AccountStore.ProfileChanges()
        changes.displayName = "  Sébastien Loeb  "
        let renamed = try accounts.updateProfile(identity, changes)
        #expect(renamed.displayName == "Sébastien Loeb")
        #expect(renamed.email == "seb@example.com")
        #expect(renamed.notificationSettings == .defaults)

        var settings = AccountStore.ProfileChanges()
        settings.followingActivity = true
        let updated = try accounts.updateProfile(identity, settings)
        #expect(updated.notificationSettings == NotificationSettings(newVideos: true, myActivity: true, followingActivity: true))
        #expect(updated.displayName == "Sébastien Loeb")

        var one = AccountStore.ProfileChanges()
        one.newVideos = false
        let again = try accounts.updateProfile(identity, one)
        #expect(again.notificationSettings == NotificationSettings(newVideos: false, myActivity: true, followingActivity: true))

        // No changes at all changes nothing.
        let unchanged = try accounts.updateProfile(identity, AccountStore.ProfileChanges())
        #expect(unchanged == again)
        #expect(try accounts.account(id: signedIn.account.id) == again)
    }

    @Test func changingTheEmailResetsVerification() throws {
        let signedIn = try fixture.signUp("seb", email: "seb@example.com")
        let identity = try accounts.authenticate(token: signedIn.token.value)
        try fixture.execute("UPDATE users SET email_verified = TRUE WHERE id = \(signedIn.account.id)")
        #expect(try accounts.account(id: signedIn.account.id)?.emailVerified == true)

        // The same address in another case is the same address: still verified, new spelling kept.
        var sameAddress = AccountStore.ProfileChanges()
        sameAddress.email = "Seb@Example.com"
        let recased = try accounts.updateProfile(identity, sameAddress)   // no password needed: not a change
        #expect(recased.email == "Seb@Example.com")
        #expect(recased.emailVerified)

        // Changing only the display name keeps it verified.
        var nameOnly = AccountStore.ProfileChanges()
        nameOnly.displayName = "Seb"
        #expect(try accounts.updateProfile(identity, nameOnly).emailVerified)

        var newAddress = AccountStore.ProfileChanges()
        newAddress.email = "loeb@example.org"
        #expect(validationField { _ = try accounts.updateProfile(identity, newAddress) } == "currentPassword")
        #expect(throws: AuthError.wrongPassword) { try accounts.updateProfile(identity, newAddress, confirmation: .password("not-the-password")) }
        #expect(try accounts.account(id: signedIn.account.id)?.email == "Seb@Example.com", "refused changes change nothing")
        let moved = try accounts.updateProfile(identity, newAddress, confirmation: .password(AuthFixture.password))
        #expect(moved.email == "loeb@example.org")
        #expect(!moved.emailVerified)

        // The new address logs in; the old one no longer does.
        #expect(try accounts.logIn(login: "LOEB@example.org", password: AuthFixture.password).account.id == signedIn.account.id)
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb@example.com", password: AuthFixture.password) }
    }

    @Test func changingToAnotherUsersEmailIsEmailTaken() throws {
        try fixture.signUp("ogier", email: "ogier@example.com")
        let signedIn = try fixture.signUp("seb", email: "seb@example.com")
        let identity = try accounts.authenticate(token: signedIn.token.value)
        var changes = AccountStore.ProfileChanges()
        changes.email = "OGIER@example.com"
        changes.displayName = "Not applied"
        #expect(throws: AuthError.emailTaken) { try accounts.updateProfile(identity, changes, confirmation: .password(AuthFixture.password)) }
        // Nothing of the refused update was applied.
        let stored = try #require(try accounts.account(id: signedIn.account.id))
        #expect(stored.email == "seb@example.com")
        #expect(stored.displayName == "seb")
    }

    @Test func updateProfileValidatesWithTheClientsFieldNames() throws {
        let signedIn = try fixture.signUp("seb")
        let identity = try accounts.authenticate(token: signedIn.token.value)
        var badName = AccountStore.ProfileChanges()
        badName.displayName = "   "
        #expect(validationField { _ = try accounts.updateProfile(identity, badName) } == "displayName")
        var longName = AccountStore.ProfileChanges()
        longName.displayName = String(repeating: "n", count: 101)
        #expect(validationField { _ = try accounts.updateProfile(identity, longName) } == "displayName")
        var badEmail = AccountStore.ProfileChanges()
        badEmail.email = "not-an-email"
        #expect(validationField { _ = try accounts.updateProfile(identity, badEmail) } == "email")
        #expect(try accounts.account(id: signedIn.account.id) == signedIn.account)
    }

    // MARK: Roles

    @Test func setRoleAppliesAtOnceToOpenSessions() throws {
        let signedIn = try fixture.signUp("SebLoeb")
        #expect(try accounts.authenticate(token: signedIn.token.value).role == .user)

        let moderator = try accounts.setRole(.moderator, idOrUsername: "sebloeb")
        #expect(moderator.role == .moderator)
        #expect(try accounts.authenticate(token: signedIn.token.value).role == .moderator)
        #expect(try accounts.account(id: signedIn.account.id)?.role == .moderator)

        let admin = try accounts.setRole(.admin, idOrUsername: signedIn.account.id)
        #expect(admin.role == .admin)
        #expect(try accounts.authenticate(token: signedIn.token.value).role == .admin)

        _ = try accounts.setRole(.user, idOrUsername: "SEBLOEB")
        #expect(try accounts.authenticate(token: signedIn.token.value).role == .user)
    }

    @Test func setRoleForNobodyIsNotFound() throws {
        #expect(throws: AuthError.notFound) { try accounts.setRole(.admin, idOrUsername: "nobody") }
    }

    /// The command line names a username only (API.md): an id is not one.
    @Test func setRoleByUsernameNeverReadsAnID() throws {
        let account = try fixture.signUp("SebLoeb").account
        #expect(throws: AuthError.notFound) { try accounts.setRole(.admin, username: account.id) }
        #expect(try accounts.setRole(.moderator, username: "SEBLOEB").role == .moderator)
    }

    /// Lookups read an id first, so a username spelled like another account's id is taken.
    @Test func aUsernameSpelledLikeAnotherAccountsIDIsTaken() throws {
        let account = try fixture.signUp("SebLoeb").account
        #expect(throws: AuthError.usernameTaken) { try fixture.signUp(account.id, email: "copy@example.com") }
    }

    // MARK: Password change

    @Test func changePasswordKeepsThisSessionAndEndsTheOthers() throws {
        let phone = try fixture.signUp("seb")
        let tablet = try accounts.logIn(login: "seb", password: AuthFixture.password)
        let laptop = try accounts.logIn(login: "seb", password: AuthFixture.password)
        let other = try fixture.signUp("ogier")
        let identity = try accounts.authenticate(token: phone.token.value)

        try accounts.changePassword(identity, confirmation: .password(AuthFixture.password), new: "new-password-2015")

        #expect(fixture.tokenWorks(phone.token))
        #expect(!fixture.tokenWorks(tablet.token))
        #expect(!fixture.tokenWorks(laptop.token))
        #expect(fixture.tokenWorks(other.token))
        #expect(try fixture.sessionCount(userID: phone.account.id) == 1)

        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb", password: AuthFixture.password) }
        #expect(try accounts.logIn(login: "seb", password: "new-password-2015").account.id == phone.account.id)
    }

    @Test func changePasswordRefusesAWrongCurrentPassword() throws {
        let phone = try fixture.signUp("seb")
        let tablet = try accounts.logIn(login: "seb", password: AuthFixture.password)
        let identity = try accounts.authenticate(token: phone.token.value)

        #expect(throws: AuthError.wrongPassword) {
            try accounts.changePassword(identity, confirmation: .password("not-my-password"), new: "new-password-2015")
        }
        // Nothing changed: the old password still logs in and no session ended.
        #expect(fixture.tokenWorks(phone.token) && fixture.tokenWorks(tablet.token))
        #expect(try accounts.logIn(login: "seb", password: AuthFixture.password).account.id == phone.account.id)
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb", password: "new-password-2015") }
    }

    @Test func changePasswordRefusesAnInvalidNewPasswordAsNewPassword() throws {
        let phone = try fixture.signUp("seb")
        let identity = try accounts.authenticate(token: phone.token.value)
        #expect(validationField { try accounts.changePassword(identity, confirmation: .password(AuthFixture.password), new: "short") } == "newPassword")
        #expect(validationField { try accounts.changePassword(identity, confirmation: .password(AuthFixture.password), new: String(repeating: "€", count: 25)) } == "newPassword")
        #expect(validationField { try accounts.changePassword(identity, confirmation: .password(AuthFixture.password), new: "new\u{0}password") } == "newPassword")
        #expect(try accounts.logIn(login: "seb", password: AuthFixture.password).account.id == phone.account.id)
    }

    // MARK: Deletion

    @Test func deleteAccountWithAWrongPasswordIsWrongPassword() throws {
        let signedIn = try fixture.signUp("seb")
        let identity = try accounts.authenticate(token: signedIn.token.value)
        var cascaded = false
        #expect(throws: AuthError.wrongPassword) {
            try accounts.deleteAccount(identity, confirmation: .password("not-my-password")) { _, _, _ in cascaded = true }
        }
        #expect(!cascaded)
        #expect(try accounts.account(id: signedIn.account.id) != nil)
        #expect(fixture.tokenWorks(signedIn.token))
    }

    @Test func deleteAccountRemovesTheAccountAndItsSessionsAndFreesTheName() throws {
        let signedIn = try fixture.signUp("SebLoeb", email: "seb@example.com")
        let second = try accounts.logIn(login: "sebloeb", password: AuthFixture.password)
        let bystander = try fixture.signUp("ogier")
        let identity = try accounts.authenticate(token: signedIn.token.value)

        var cascadedFor: String?
        try accounts.deleteAccount(identity, confirmation: .password(AuthFixture.password)) { account, connection, deleteRow in
            cascadedFor = account.id
            // The cascade runs in the same transaction, before the account goes.
            let present = try connection.fetchValue("SELECT COUNT(*) FROM users WHERE id = \(account.id)", as: Int.self)
            #expect(present == 1)
            try deleteRow()
        }
        #expect(cascadedFor == signedIn.account.id)

        #expect(try accounts.account(id: signedIn.account.id) == nil)
        #expect(try accounts.account(idOrUsername: "SebLoeb") == nil)
        #expect(try fixture.sessionCount(userID: signedIn.account.id) == 0)
        #expect(!fixture.tokenWorks(signedIn.token))
        #expect(!fixture.tokenWorks(second.token))
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "SebLoeb", password: AuthFixture.password) }
        #expect(fixture.tokenWorks(bystander.token))

        // The username and email can be used again, in any case, by a new account.
        let reborn = try fixture.signUp("sebloeb", email: "SEB@example.com")
        #expect(reborn.account.id != signedIn.account.id)
        #expect(try accounts.logIn(login: "SEBLOEB", password: AuthFixture.password).account.id == reborn.account.id)
    }

    @Test func aFailingCascadeDeletesNothing() throws {
        struct CascadeFailed: Error {}
        let signedIn = try fixture.signUp("seb")
        let identity = try accounts.authenticate(token: signedIn.token.value)
        #expect(throws: CascadeFailed.self) {
            try accounts.deleteAccount(identity, confirmation: .password(AuthFixture.password)) { _, _, _ in throw CascadeFailed() }
        }
        #expect(try accounts.account(id: signedIn.account.id) != nil)
        #expect(fixture.tokenWorks(signedIn.token))
    }

    // MARK: Bans

    @Test func aBannedAccountIsToldOnlyWithTheRightPassword() throws {
        let signedIn = try fixture.signUp("seb", email: "seb@example.com")
        try fixture.ban(userID: signedIn.account.id)

        #expect(throws: AuthError.accountBanned) { try accounts.logIn(login: "seb", password: AuthFixture.password) }
        #expect(throws: AuthError.accountBanned) { try accounts.logIn(login: "SEB@example.com", password: AuthFixture.password) }
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "seb", password: "not-my-password") }
        // No session was opened by the refused logins.
        #expect(try fixture.sessionCount(userID: signedIn.account.id) == 1)
        #expect(try accounts.account(id: signedIn.account.id)?.isBanned == true)
    }

    @Test func aBannedAccountsSessionsStopWorking() throws {
        let signedIn = try fixture.signUp("seb")
        _ = try accounts.setRole(.admin, idOrUsername: "seb")
        #expect(fixture.tokenWorks(signedIn.token))
        try fixture.ban(userID: signedIn.account.id)
        // Written straight to the database, as another process would: it applies once the
        // session cache's second has passed (changes made through Accounts apply at once).
        fixture.clock.advance(seconds: 1)
        #expect(throws: AuthError.invalidSession) { try accounts.authenticate(token: signedIn.token.value) }

        // Lifting the ban (clearing banned_at) lets them back in.
        try fixture.execute("UPDATE users SET banned_at = NULL, ban_reason = NULL WHERE id = \(signedIn.account.id)")
        #expect(try accounts.logIn(login: "seb", password: AuthFixture.password).account.id == signedIn.account.id)
    }
}
