import Storage

/// Locks a login name, and an account, after too many failed logins (API.md "Lockout").
///
/// Counted per key in the database, shared by every server process on the database. A login
/// counts against the lower-cased login name, whether or not an account has that name (so a
/// lockout reveals nothing), and, once the name is known to be an account's username or email,
/// against `accountKey(id:)` too: guessing by username and by email then share one budget of
/// `threshold` failures instead of two, and a locked account is refused whichever name is used.
/// Each failure is a row, so the window slides: `threshold` failures within any span of
/// `windowMillis` lock the key, however they fall on the clock. A key keeps at most
/// `threshold - 1` rows, and `purge` drops what has aged out.
public struct LoginThrottle: Sendable {
    public struct Policy: Sendable {
        /// Failures within `windowMillis` that lock the name.
        public var threshold: Int = 10
        public var windowMillis: Int64 = 15 * 60 * 1_000
        public var lockMillis: Int64 = 15 * 60 * 1_000
        public init() {}
    }

    let policy: Policy

    /// The key that counts failures against an account, whichever login name they used.
    ///
    /// Login-name keys are lower-cased (`Validation.key`), so they never contain an upper-case
    /// ASCII letter: no login name can be spelled to share this key's counter.
    static func accountKey(id: String) -> String { "ACCOUNT " + id }

    /// When any of `keys` is locked, the longest of the milliseconds left.
    func lockRemaining(keys: [String], now: Int64, on connection: any DatabaseConnection) throws -> Int64? {
        try keys.compactMap { try lockRemaining(key: $0, now: now, on: connection) }.max()
    }

    /// Counts one failure against each of `keys`.
    func recordFailure(keys: [String], now: Int64, on connection: any DatabaseConnection) throws {
        for key in keys { try recordFailure(key: key, now: now, on: connection) }
    }

    /// A successful login forgets the earlier failures of each of `keys`.
    func recordSuccess(keys: [String], on connection: any DatabaseConnection) throws {
        for key in keys { try recordSuccess(key: key, on: connection) }
    }

    /// When the name is locked, the milliseconds left.
    func lockRemaining(key: String, now: Int64, on connection: any DatabaseConnection) throws -> Int64? {
        guard let until = try connection.fetchValue("SELECT locked_until FROM login_locks WHERE login_key = \(key)", as: Int64.self),
              until > now else { return nil }
        return until - now
    }

    /// Counts one failure; the `threshold`-th within the window locks the name for `lockMillis`
    /// and starts the count afresh.
    func recordFailure(key: String, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM login_failures WHERE login_key = \(key) AND failed_at <= \(now - policy.windowMillis)")
        try connection.execute("INSERT INTO login_failures (login_key, failed_at) VALUES (\(key), \(now))")
        let failures = try connection.fetchValue("SELECT COUNT(*) FROM login_failures WHERE login_key = \(key)", as: Int.self) ?? 0
        guard failures >= policy.threshold else { return }
        try connection.execute("""
            INSERT INTO login_locks (login_key, locked_until) VALUES (\(key), \(now + policy.lockMillis))
            ON CONFLICT (login_key) DO UPDATE SET locked_until = excluded.locked_until
            """)
        try connection.execute("DELETE FROM login_failures WHERE login_key = \(key)")
    }

    /// A successful login forgets earlier failures.
    func recordSuccess(key: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM login_failures WHERE login_key = \(key)")
        try connection.execute("DELETE FROM login_locks WHERE login_key = \(key)")
    }

    /// Drops failures that have left the window and locks that have expired.
    func purge(now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM login_failures WHERE failed_at <= \(now - policy.windowMillis)")
        try connection.execute("DELETE FROM login_locks WHERE locked_until <= \(now)")
    }
}
