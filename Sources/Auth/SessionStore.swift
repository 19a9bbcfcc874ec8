import Storage

/// The SQL of the `sessions` table.
struct SessionStore: Sendable {
    func insert(tokenKey: String, userID: String, now: Int64, expiresAt: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
            VALUES (\(tokenKey), \(userID), \(now), \(expiresAt))
            """)
    }

    /// The session's user, role and expiry, if the session exists.
    func lookup(tokenKey: String, on connection: any DatabaseConnection) throws -> (userID: String, userSeq: Int64, role: String, expiresAt: Int64, banned: Bool)? {
        guard let row = try connection.fetchOne("""
            SELECT s.user_id, u.seq, s.expires_at, u.role, u.banned_at
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenKey)
            """) else { return nil }
        let bannedAt: Int64? = try row.decode("banned_at")
        return (try row.decode("user_id"), try row.decode("seq"), try row.decode("role"), try row.decode("expires_at"), bannedAt != nil)
    }

    func extend(tokenKey: String, until expiresAt: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE sessions SET expires_at = \(expiresAt) WHERE token_hash = \(tokenKey)")
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
