import Storage

/// The SQL of the `users` table. Every method runs on a connection lent by a
/// `read` or `write` closure, so callers choose the transaction.
public struct AccountStore: Sendable {
    public init() {}

    /// A new account's row. The caller has validated every field and hashed the password.
    struct NewAccount {
        var id: String
        var username: String
        var email: String
        var displayName: String
        var passwordHash: String
        var role: Role
        var emailVerified: Bool = false
        var locale: AccountLocale = .english
        var createdAt: Int64
    }

    func insert(_ account: NewAccount, on connection: any DatabaseConnection) throws -> Account {
        do {
            try connection.execute("""
                INSERT INTO users (id, username, username_key, email, email_key, email_verified, display_name,
                                   password_hash, role, locale, created_at, updated_at)
                VALUES (\(account.id), \(account.username), \(Validation.key(account.username)), \(account.email),
                        \(Validation.key(account.email)), \(account.emailVerified), \(account.displayName),
                        \(account.passwordHash), \(account.role.rawValue), \(account.locale.rawValue), \(account.createdAt), \(account.createdAt))
                """)
        } catch {
            throw Self.mapUniqueViolation(error)
        }
        return Account(
            id: account.id, username: account.username, email: account.email, emailVerified: account.emailVerified,
            displayName: account.displayName, picture: nil, role: account.role,
            notificationSettings: .defaults, followersCount: 0, followingCount: 0, videosCount: 0,
            createdAt: account.createdAt, bannedAt: nil, locale: account.locale
        )
    }

    /// The account with this id.
    public func find(id: String, on connection: any DatabaseConnection) throws -> Account? {
        try connection.fetchOne("SELECT \(Account.columns) FROM users WHERE id = \(id)").map(Account.init(row:))
    }

    /// The account a path segment names (API.md `GET /v1/users/{idOrUsername}`).
    ///
    /// The rule: a value with the shape of an id (`ObjectID`) is first read as an id, exactly
    /// (ids are case-sensitive); when no account has that id, or the value cannot be an id
    /// (it holds `_` or `.`), it is read as a username in any case. Ids win because nobody
    /// chooses one: new ids are random, imported ones are checked against existing usernames;
    /// usernames are chosen by anyone, so a username could otherwise take over the lookups of
    /// an id that apps stored. A username spelled like an existing id (as typed or lower-cased)
    /// is refused at sign-up and import, so the two readings do not name different accounts.
    public func find(idOrUsername value: String, on connection: any DatabaseConnection) throws -> Account? {
        if ObjectID.isWellFormed(value), let account = try find(id: value, on: connection) { return account }
        return try find(username: value, on: connection)
    }

    /// The account with this username, in any case.
    public func find(username: String, on connection: any DatabaseConnection) throws -> Account? {
        try connection.fetchOne("SELECT \(Account.columns) FROM users WHERE username_key = \(Validation.key(username))")
            .map(Account.init(row:))
    }

    /// Whether `username`, as typed or lower-cased, is the id of an account (other than `except`).
    public func isID(ofAnotherAccount username: String, except: String? = nil, on connection: any DatabaseConnection) throws -> Bool {
        try connection.fetchOne("""
            SELECT 1 FROM users WHERE id IN (\(username), \(Validation.key(username))) AND id IS DISTINCT FROM \(except.databaseValue)
            """) != nil
    }

    /// Whether an account has this email, in any case.
    func hasAccount(email: String, on connection: any DatabaseConnection) throws -> Bool {
        try connection.fetchOne("SELECT 1 FROM users WHERE email_key = \(Validation.key(email))") != nil
    }

    /// The id and password hash for a login name (username or email, any case).
    func credentials(login: String, on connection: any DatabaseConnection) throws -> (id: String, passwordHash: String)? {
        let key = Validation.key(login)
        let sql: SQL = login.contains("@")
            ? "SELECT id, password_hash FROM users WHERE email_key = \(key)"
            : "SELECT id, password_hash FROM users WHERE username_key = \(key)"
        guard let row = try connection.fetchOne(sql) else { return nil }
        return (try row.decode("id"), try row.decode("password_hash"))
    }

    func setPasswordHash(_ hash: String, id: String, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE users SET password_hash = \(hash), updated_at = \(now) WHERE id = \(id)")
    }

    /// The changes a profile update makes; nil fields stay as they are (PATCH merges).
    public struct ProfileChanges: Sendable {
        public var displayName: String?
        public var email: String?
        public var newVideos: Bool?
        public var myActivity: Bool?
        public var followingActivity: Bool?
        public var locale: AccountLocale?
        public init() {}
    }

    func update(id: String, _ changes: ProfileChanges, now: Int64, on connection: any DatabaseConnection) throws {
        var assignments: [SQL] = ["updated_at = \(now)"]
        if let name = changes.displayName { assignments.append("display_name = \(name)") }
        if let email = changes.email {
            // A changed address is no longer verified.
            assignments.append("email = \(email), email_key = \(Validation.key(email)), email_verified = CASE WHEN email_key = \(Validation.key(email)) THEN email_verified ELSE FALSE END")
        }
        if let on = changes.newVideos { assignments.append("notify_new_videos = \(on)") }
        if let on = changes.myActivity { assignments.append("notify_my_activity = \(on)") }
        if let on = changes.followingActivity { assignments.append("notify_following_activity = \(on)") }
        if let locale = changes.locale { assignments.append("locale = \(locale.rawValue)") }
        do {
            try connection.execute("UPDATE users SET \(SQL.joined(assignments, separator: ", ")) WHERE id = \(id)")
        } catch {
            throw Self.mapUniqueViolation(error)
        }
    }

    /// Changes the role of `account` and answers it updated.
    public func setRole(_ role: Role, of account: Account, now: Int64, on connection: any DatabaseConnection) throws -> Account {
        try connection.execute("UPDATE users SET role = \(role.rawValue), updated_at = \(now) WHERE id = \(account.id)")
        var updated = account
        updated.role = role
        return updated
    }

    /// The stored counters of a user, kept exact by the application's hooks.
    public enum Counter: String, Sendable {
        case followers = "followers_count"
        case following = "following_count"
        case videos = "videos_count"
    }

    /// Adds `delta` to one of a user's stored counters.
    public func adjust(_ counter: Counter, of userID: String, by delta: Int, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE users SET \(unsafe: counter.rawValue) = \(unsafe: counter.rawValue) + \(delta) WHERE id = \(userID)")
    }

    /// The accounts with these ids, in no particular order (for presenting lists).
    public func find(ids: [String], on connection: any DatabaseConnection) throws -> [Account] {
        guard !ids.isEmpty else { return [] }
        let list = SQL.joined(ids.map { "\($0)" }, separator: ", ")
        return try connection.fetchAll("SELECT \(Account.columns) FROM users WHERE id IN (\(list))").map(Account.init(row:))
    }

    func delete(id: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM users WHERE id = \(id)")
    }

    /// Turns the UNIQUE violations of `users` into the errors clients see; anything else passes through.
    static func mapUniqueViolation(_ error: any Error) -> any Error {
        guard let storage = error as? StorageError else { return error }
        if storage.isUniqueViolation(on: "username_key") { return AuthError.usernameTaken }
        if storage.isUniqueViolation(on: "email_key") { return AuthError.emailTaken }
        return error
    }
}
