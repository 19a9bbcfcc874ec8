import Crypto
import Storage
import Telemetry

/// Accounts and sessions (API.md "Accounts and sessions"): sign-up, login with lockout,
/// session tokens, profile changes, password change, account deletion, roles.
///
/// Calls block on bcrypt (about 50 ms at cost 10) where a password is involved, so the
/// HTTP layer runs those routes on its offload pool. No bcrypt ever runs while the
/// database writer is held.
public final class Accounts: Sendable {
    public struct Configuration: Sendable {
        public var bcryptCost: Int = 10
        /// Sessions last this long and are extended on use once half of it has passed.
        public var sessionLifetimeMillis: Int64 = 365 * 24 * 3_600 * 1_000
        /// How stale a session's recorded last use (`sessions.last_used_at`) may get before a
        /// look-up writes it again: a day, so an active session costs one write a day (a read
        /// on a serving thread waits for that write), and an export's `lastUsedAt` is exact to a day.
        public var sessionTouchMillis: Int64 = 24 * 3_600 * 1_000
        public var lockout = LoginThrottle.Policy()
        /// How long a resolved session may be reused without a lookup (0: never). Changes made
        /// through this process apply at once regardless; other processes' within this time.
        /// Half a second, so that a session ended through one server is refused by every other
        /// within a second, request time and clock ticks included (a whole second was that
        /// bound exactly, with no margin for either).
        public var sessionCacheMillis: Int64 = 500
        /// Makes the tokens of verification and reset mails; the application derives it from
        /// the cursor secret so that every process on one database makes the same links.
        /// Nil: a random key for this process only (tests).
        public var tokenMint: AccountTokenMint?
        public init() {}
    }

    /// A signed-in user, the token their client keeps, and the account's ways in (User(me)).
    public struct SignedIn: Sendable {
        public let account: Account
        public let token: SessionToken
        public let methods: SignInMethods
    }

    /// Who is calling, as resolved from a session token on every request; the role is
    /// read fresh each time so that role changes apply to open sessions at once.
    public struct Identity: Sendable, Equatable {
        public let userID: String
        /// The account's stable integer key, for the feed timelines.
        public let userSeq: Int64
        public let role: Role
        /// The SHA-256 of the caller's token: enough to end this session, useless to an attacker.
        public let sessionKey: String
    }

    // Internal (not private) for the extensions: Accounts+Standing.swift (bans and role
    // changes) and Accounts+Recovery.swift (verification and reset).
    let database: any Database
    let configuration: Configuration
    let clock: any WallClock
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    let store = AccountStore()
    let identities = IdentityStore()
    let nonces = NonceLedger()
    let sessions = SessionStore()
    let cache: SessionCache
    let tokens = AccountTokenStore()
    let mint: AccountTokenMint

    public init(database: any Database, configuration: Configuration = .init(), clock: any WallClock = SystemClock()) {
        self.database = database
        self.configuration = configuration
        self.clock = clock
        hasher = PasswordHasher(cost: configuration.bcryptCost)
        throttle = LoginThrottle(policy: configuration.lockout)
        cache = SessionCache(ttlMillis: configuration.sessionCacheMillis)
        // SystemRandomNumberGenerator reads the kernel's CSPRNG (getrandom) on Linux.
        var generator = SystemRandomNumberGenerator()
        mint = configuration.tokenMint ?? AccountTokenMint(key: HMACKey(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    // MARK: Sign-up and accounts

    /// Creates an account and its first session. `created` runs in the same transaction (the
    /// application queues the verification mail there, so it is sent if and only if the account exists).
    public func signUp(
        username: String, email: String, password: String, displayName: String?, locale: AccountLocale = .english,
        created: (Account, any DatabaseConnection) throws -> Void = { _, _ in }
    ) throws -> SignedIn {
        let account = try createAccount(username: username, email: email, password: password, displayName: displayName, role: .user,
                                        locale: locale) { account, connection in
            let token = try SessionToken.generate()
            try self.startSession(token: token, userID: account.id, on: connection)
            try created(account, connection)
            return token
        }
        return SignedIn(account: account.0, token: account.1, methods: SignInMethods(identities: [], hasPassword: true))
    }

    /// Creates an account without a session (the `pacenote user create` command).
    public func createAccount(username: String, email: String, password: String, role: Role) throws -> Account {
        try createAccount(username: username, email: email, password: password, displayName: nil, role: role) { _, _ in () }.0
    }

    private func createAccount<T>(
        username: String, email: String, password: String, displayName: String?, role: Role, locale: AccountLocale = .english,
        then: (Account, any DatabaseConnection) throws -> T
    ) throws -> (Account, T) {
        let username = try Validation.username(username)
        let email = try Validation.email(email)
        let password = try Validation.password(password)
        let displayName = try displayName.map { try Validation.displayName($0) } ?? username
        let hash = try hasher.hash(password)
        let now = clock.nowMillis()
        let id = try SecureRandom.alphanumericID()
        return try database.write { connection in
            // `GET /v1/users/{idOrUsername}` reads an id first: a username spelled like another
            // account's id would be shadowed by it, so it counts as taken.
            if try store.isID(ofAnotherAccount: username, on: connection) { throw AuthError.usernameTaken }
            let account = try store.insert(
                .init(id: id, username: username, email: email, displayName: displayName, passwordHash: hash, role: role, locale: locale, createdAt: now),
                on: connection
            )
            return (account, try then(account, connection))
        }
    }

    public func account(id: String) throws -> Account? {
        try database.read { connection in try store.find(id: id, on: connection) }
    }

    public func account(idOrUsername: String) throws -> Account? {
        try database.read { connection in try store.find(idOrUsername: idOrUsername, on: connection) }
    }

    /// Applies the given profile changes (PATCH merges: nil means unchanged) and answers the result.
    ///
    /// Changing the email needs a confirmation (API.md: the current password, or a linked
    /// provider's token): a stolen session alone must not become an email change and then a reset. The change ends every reset token the account
    /// has, and `emailChanged` runs in the same transaction with the new account and the old
    /// address (the routes queue the new address's verification and the old one's notice).
    public func updateProfile(
        _ identity: Identity, _ changes: AccountStore.ProfileChanges, confirmation: Confirmation? = nil,
        emailChanged: (_ account: Account, _ oldEmail: String, any DatabaseConnection) throws -> Void = { _, _, _ in }
    ) throws -> Account {
        var changes = changes
        if let name = changes.displayName { changes.displayName = try Validation.displayName(name) }
        if let requested = changes.email {
            let email = try Validation.email(requested)
            changes.email = email
            guard let before = try account(id: identity.userID) else { throw AuthError.invalidSession }
            if Validation.key(before.email) != Validation.key(email) {
                guard let confirmation else {
                    throw AuthError.validation(field: "currentPassword", message: "Changing the email needs currentPassword (or provider and token).")
                }
                try confirm(identity, confirmation)
            }
        }
        let now = clock.nowMillis()
        return try database.write { connection in
            let before = try store.find(id: identity.userID, on: connection)
            try store.update(id: identity.userID, changes, now: now, on: connection)
            guard let account = try store.find(id: identity.userID, on: connection) else { throw AuthError.invalidSession }
            if let before, Validation.key(before.email) != Validation.key(account.email) {
                try tokens.endAll(userID: account.id, purpose: .resetPassword, on: connection)
                try emailChanged(account, before.email, connection)
            }
            return account
        }
    }

    /// Changes a user's role (admins, over HTTP): `idOrUsername` as `account(idOrUsername:)` reads it.
    public func setRole(_ role: Role, idOrUsername: String) throws -> Account {
        try setRole(role) { connection in try store.find(idOrUsername: idOrUsername, on: connection) }
    }

    /// Changes the role of the account with this username, in any case (the command line,
    /// API.md `pacenote user role USERNAME ROLE`): an id is never read as a username.
    public func setRole(_ role: Role, username: String) throws -> Account {
        try setRole(role) { connection in try store.find(username: username, on: connection) }
    }

    private func setRole(_ role: Role, of find: (any DatabaseConnection) throws -> Account?) throws -> Account {
        let now = clock.nowMillis()
        let account = try database.write { connection in
            guard let account = try find(connection) else { throw AuthError.notFound }
            return try store.setRole(role, of: account, now: now, on: connection)
        }
        cache.removeAll()
        return account
    }

    // MARK: Sessions

    /// Logs in with a username or email and a password.
    ///
    /// The answer for a wrong password and for an unknown login is the same, and takes as
    /// long (a dummy bcrypt runs for unknown names, and for accounts without a usable hash).
    /// Failures count against the login name and, when it names an account, against the
    /// account (`LoginThrottle`). A locked name or account is refused before any bcrypt work,
    /// even with the right password.
    public func logIn(login: String, password: String) throws -> SignedIn {
        let nameKey = Validation.key(login)
        // No username or email holds a NUL, so such a name is nobody's, and PostgreSQL could not
        // even store it as a lockout key: answered as an unknown name is, with the same dummy
        // bcrypt, on either database.
        guard !nameKey.utf8.contains(0) else {
            hasher.burnTime(password)
            throw AuthError.invalidCredentials
        }
        let now = clock.nowMillis()
        let (remaining, credentials, keys) = try database.read { connection in
            let credentials = try store.credentials(login: login, on: connection)
            let keys = [nameKey] + (credentials.map { [LoginThrottle.accountKey(id: $0.id)] } ?? [])
            return (try throttle.lockRemaining(keys: keys, now: now, on: connection), credentials, keys)
        }
        if let remaining {
            throw AuthError.accountLocked(retryAfterSeconds: Int((remaining + 999) / 1_000))
        }
        let valid: Bool
        if let credentials {
            valid = hasher.verify(password, against: credentials.passwordHash)
        } else {
            hasher.burnTime(password)
            valid = false
        }
        guard valid, let credentials else {
            try database.write { connection in try throttle.recordFailure(keys: keys, now: clock.nowMillis(), on: connection) }
            throw AuthError.invalidCredentials
        }
        let token = try SessionToken.generate()
        return try database.write { connection in
            guard let account = try store.find(id: credentials.id, on: connection) else { throw AuthError.invalidCredentials }
            // A ban is told only to someone who knows the password, so it reveals nothing to others.
            if account.isBanned { throw AuthError.accountBanned }
            try throttle.recordSuccess(keys: keys, on: connection)
            try startSession(token: token, userID: account.id, on: connection)
            return SignedIn(account: account, token: token, methods: try signInMethods(userID: account.id, on: connection))
        }
    }

    func startSession(token: SessionToken, userID: String, on connection: any DatabaseConnection) throws {
        let now = clock.nowMillis()
        try sessions.insert(tokenKey: token.storageKey, userID: userID, now: now, expiresAt: now + configuration.sessionLifetimeMillis, on: connection)
        try sessions.recordActiveDay(userID: userID, now: now, on: connection)
    }

    /// Resolves a bearer token to the caller. Unknown, expired and revoked tokens, and
    /// tokens of banned accounts, are all `invalidSession`.
    public func authenticate(token: String) throws -> Identity {
        let key = SessionToken(value: token).storageKey
        let now = clock.nowMillis()
        if let identity = cache.identity(forKey: key, now: now) { return identity }
        let generation = cache.generation
        guard let session = try database.read({ connection in try sessions.lookup(tokenKey: key, on: connection) }),
              session.expiresAt > now, !session.banned, let role = Role(rawValue: session.role) else {
            throw AuthError.invalidSession
        }
        // Extend on use once half the lifetime has passed: one write per session per half-life.
        // The last use (an export lists it) is written with it, and on its own at most once per
        // `sessionTouchMillis`: a write per session a day, never one per request. The first use
        // of a UTC day writes too, with the user's row of that day (`active_days`, the admin
        // statistics' active users): still at most one write per session and day.
        let extend = session.expiresAt - now < configuration.sessionLifetimeMillis / 2
        let newDay = now / SessionStore.dayMillis != session.lastUsedAt / SessionStore.dayMillis
        if extend || newDay || now - session.lastUsedAt >= configuration.sessionTouchMillis {
            try database.write { connection in
                try sessions.touch(tokenKey: key, now: now, extendingUntil: extend ? now + configuration.sessionLifetimeMillis : nil, on: connection)
                try sessions.recordActiveDay(userID: session.userID, now: now, on: connection)
            }
        }
        let identity = Identity(userID: session.userID, userSeq: session.userSeq, role: role, sessionKey: key)
        cache.store(identity, expiresAt: session.expiresAt, now: now, since: generation)
        return identity
    }

    /// Ends the caller's session; the token fails from the next request on.
    public func logOut(_ identity: Identity) throws {
        try database.write { connection in try sessions.delete(tokenKey: identity.sessionKey, on: connection) }
        cache.remove(key: identity.sessionKey)
    }

    /// Ends every session of the caller's account, this one included.
    public func logOutEverywhere(_ identity: Identity) throws {
        try database.write { connection in try sessions.deleteAll(userID: identity.userID, on: connection) }
        cache.removeAll()
    }

    // MARK: Password and deletion

    /// Changes the password after the confirmation; every other session ends. An account
    /// without a password sets its first one with a fresh token of a linked provider (API.md):
    /// the session alone would let whoever stole it take the account in one step.
    public func changePassword(_ identity: Identity, confirmation: Confirmation?, new: String) throws {
        let newPassword = try Validation.password(new, field: "newPassword")
        if let confirmation {
            try confirm(identity, confirmation)
        } else if try signInMethods(userID: identity.userID).hasPassword {
            throw AuthError.validation(field: "currentPassword", message: "Changing the password needs currentPassword.")
        } else {
            throw AuthError.confirmationRefused(field: "proof")
        }
        let hash = try hasher.hash(newPassword)
        let now = clock.nowMillis()
        try database.write { connection in
            try store.setPasswordHash(hash, id: identity.userID, now: now, on: connection)
            try tokens.endAll(userID: identity.userID, purpose: .resetPassword, on: connection)
            try sessions.deleteAll(userID: identity.userID, keeping: identity.sessionKey, on: connection)
        }
        cache.removeAll()
    }

    /// Deletes the caller's account after the confirmation (the password, or a linked
    /// provider's token). `run` receives the account
    /// and the transaction's connection, and must call `deleteRow` once: that is where the
    /// application's hooks wrap the delete with their cascades. The account's sessions go
    /// with the row (ON DELETE CASCADE).
    public func deleteAccount(
        _ identity: Identity, confirmation: Confirmation,
        through run: (Account, any DatabaseConnection, _ deleteRow: () throws -> Void) throws -> Void = { _, _, deleteRow in try deleteRow() }
    ) throws {
        try confirm(identity, confirmation)
        try database.write { connection in
            guard let account = try store.find(id: identity.userID, on: connection) else { throw AuthError.invalidSession }
            try run(account, connection) { try store.delete(id: account.id, on: connection) }
        }
        cache.removeAll()
    }

    /// Checks a confirmation password. Failures count toward the lockout of the account's
    /// username and of the account itself, so a stolen session cannot be used to guess the
    /// password without limit, nor to add to the budget of guesses at the login.
    func checkPassword(_ identity: Identity, _ password: String) throws {
        let now = clock.nowMillis()
        let keys = { (usernameKey: String) in [usernameKey, LoginThrottle.accountKey(id: identity.userID)] }
        guard let (usernameKey, hash, remaining) = try database.read({ connection -> (String, String, Int64?)? in
            guard let row = try connection.fetchOne("SELECT username_key, password_hash FROM users WHERE id = \(identity.userID)") else { return nil }
            let usernameKey: String = try row.decode("username_key")
            return (usernameKey, try row.decode("password_hash"), try throttle.lockRemaining(keys: keys(usernameKey), now: now, on: connection))
        }) else {
            throw AuthError.invalidSession
        }
        if let remaining { throw AuthError.accountLocked(retryAfterSeconds: Int((remaining + 999) / 1_000)) }
        guard hasher.verify(password, against: hash) else {
            try database.write { connection in try throttle.recordFailure(keys: keys(usernameKey), now: clock.nowMillis(), on: connection) }
            throw AuthError.wrongPassword
        }
    }

    /// Removes expired sessions, lockout records that no longer count, used nonces of expired
    /// tokens and `active_days` rows
    /// older than 90 days (the statistics read 30); answers how many sessions went. The
    /// server runs it periodically.
    public func purgeExpired() throws -> Int {
        let now = clock.nowMillis()
        return try database.write { connection in
            try throttle.purge(now: now, on: connection)
            try tokens.deleteExpired(now: now, on: connection)
            try nonces.purge(now: now, on: connection)
            try sessions.purgeActiveDays(before: now - 90 * SessionStore.dayMillis, on: connection)
            return try sessions.deleteExpired(now: now, on: connection)
        }
    }
}
