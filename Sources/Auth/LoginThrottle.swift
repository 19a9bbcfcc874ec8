import Storage

/// Locks a login name after too many failed logins (API.md "Lockout").
///
/// Counted per lower-cased login name in the database, whether or not an account has that
/// name (so a lockout reveals nothing), and shared by every server process on the database.
public struct LoginThrottle: Sendable {
    public struct Policy: Sendable {
        /// Failures within `windowMillis` that lock the name.
        public var threshold: Int = 10
        public var windowMillis: Int64 = 15 * 60 * 1_000
        public var lockMillis: Int64 = 15 * 60 * 1_000
        public init() {}
    }

    let policy: Policy

    /// When the name is locked, the milliseconds left.
    func lockRemaining(key: String, now: Int64, on connection: any DatabaseConnection) throws -> Int64? {
        guard let until = try connection.fetchValue(
            "SELECT locked_until FROM login_throttle WHERE login_key = \(key)", as: Int64?.self) ?? nil,
            until > now else { return nil }
        return until - now
    }

    /// Counts one failure; a failure outside the window starts a new one, and the
    /// `threshold`-th failure inside it locks the name for `lockMillis`.
    func recordFailure(key: String, now: Int64, on connection: any DatabaseConnection) throws {
        let windowStart = now - policy.windowMillis
        try connection.execute("""
            INSERT INTO login_throttle (login_key, failures, window_start, locked_until)
            VALUES (\(key), 1, \(now), NULL)
            ON CONFLICT (login_key) DO UPDATE SET
                failures = CASE WHEN login_throttle.window_start <= \(windowStart) THEN 1 ELSE login_throttle.failures + 1 END,
                window_start = CASE WHEN login_throttle.window_start <= \(windowStart) THEN \(now) ELSE login_throttle.window_start END
            """)
        try connection.execute("""
            UPDATE login_throttle SET locked_until = \(now + policy.lockMillis), failures = 0, window_start = \(now)
            WHERE login_key = \(key) AND failures >= \(policy.threshold)
            """)
    }

    /// A successful login forgets earlier failures.
    func recordSuccess(key: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM login_throttle WHERE login_key = \(key)")
    }
}
