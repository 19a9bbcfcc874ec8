import Storage

/// Changes to what an account may do (its role, a ban), made by moderators and admins.
///
/// The caller (Community's Moderation) writes the change, its hooks and its log entry in one
/// transaction through `changeStanding`; the session cache is emptied after the commit, so
/// every open session sees the change on its next request (API.md: "Role changes take effect
/// at once for open sessions"; "a banned user's sessions end").
extension Accounts {
    /// Runs `change` in one write transaction, then forgets every cached session.
    public func changeStanding<T>(_ change: (any DatabaseConnection) throws -> T) throws -> T {
        let result = try database.write(change)
        cache.removeAll()
        return result
    }

    /// Ends every session of a user, inside the caller's transaction (a ban).
    public func endSessions(userID: String, on connection: any DatabaseConnection) throws {
        try SessionStore().deleteAll(userID: userID, on: connection)
    }
}

extension AccountStore {
    /// Bans (`bannedAt` set) or unbans (nil) an account and answers it updated.
    public func setBan(_ bannedAt: Int64?, reason: String?, of account: Account, now: Int64, on connection: any DatabaseConnection) throws -> Account {
        try connection.execute("""
            UPDATE users SET banned_at = \(bannedAt), ban_reason = \(bannedAt == nil ? nil : reason), updated_at = \(now)
            WHERE id = \(account.id)
            """)
        var updated = account
        updated.bannedAt = bannedAt
        return updated
    }

    /// Whether the account is banned now (read inside the caller's transaction).
    public func isBanned(userID: String, on connection: any DatabaseConnection) throws -> Bool {
        try connection.fetchValue("SELECT banned_at IS NOT NULL FROM users WHERE id = \(userID)", as: Bool.self) ?? false
    }
}
