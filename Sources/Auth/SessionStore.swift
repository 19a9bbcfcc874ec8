import Storage

/// The SQL of the `sessions` table.
struct SessionStore: Sendable {
    func insert(tokenKey: String, userID: String, now: Int64, expiresAt: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at, last_used_at)
            VALUES (\(tokenKey), \(userID), \(now), \(expiresAt), \(now))
            """)
    }

    /// The session's user, role, expiry and last use, if the session exists.
    func lookup(tokenKey: String, on connection: any DatabaseConnection) throws
        -> (userID: String, userSeq: Int64, role: String, expiresAt: Int64, lastUsedAt: Int64, banned: Bool)? {
        guard let row = try connection.fetchOne("""
            SELECT s.user_id, u.seq, s.expires_at, s.last_used_at, u.role, u.banned_at
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenKey)
            """) else { return nil }
        let bannedAt: Int64? = try row.decode("banned_at")
        return (try row.decode("user_id"), try row.decode("seq"), try row.decode("role"), try row.decode("expires_at"),
                try row.decode("last_used_at"), bannedAt != nil)
    }

    /// Records a use of the session at `now` and, when given, its new expiry.
    func touch(tokenKey: String, now: Int64, extendingUntil expiresAt: Int64?, on connection: any DatabaseConnection) throws {
        if let expiresAt {
            try connection.execute("UPDATE sessions SET expires_at = \(expiresAt), last_used_at = \(now) WHERE token_hash = \(tokenKey)")
        } else {
            try connection.execute("UPDATE sessions SET last_used_at = \(now) WHERE token_hash = \(tokenKey)")
        }
    }

    static let dayMillis: Int64 = 86_400_000

    /// Marks the user active on `now`'s UTC day (migration 0022's `active_days`); a repeat is a no-op.
    func recordActiveDay(userID: String, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO active_days (day, user_id) VALUES (\(now / Self.dayMillis), \(userID)) ON CONFLICT (day, user_id) DO NOTHING
            """)
    }

    /// Forgets who was active before `before` (milliseconds): the statistics read 30 days.
    func purgeActiveDays(before: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM active_days WHERE day < \(before / Self.dayMillis)")
    }

    func delete(tokenKey: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM sessions WHERE token_hash = \(tokenKey)")
    }

    /// Ends every session of a user, except `keeping` when given.
    func deleteAll(userID: String, keeping: String? = nil, on connection: any DatabaseConnection) throws {
        if let keeping {
            try connection.execute("DELETE FROM sessions WHERE user_id = \(userID) AND token_hash <> \(keeping)")
        } else {
            try connection.execute("DELETE FROM sessions WHERE user_id = \(userID)")
        }
    }

    func deleteExpired(now: Int64, on connection: any DatabaseConnection) throws -> Int {
        try connection.execute("DELETE FROM sessions WHERE expires_at <= \(now)")
    }
}
