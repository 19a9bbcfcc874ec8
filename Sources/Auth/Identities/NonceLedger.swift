import Storage

/// The provider nonces already used (migration 0023 `used_nonces`): a token that carries a
/// nonce signs in, links or confirms once, so a stolen ID token cannot be replayed for the rest
/// of its lifetime (API.md "a nonce signs in once"). A row lives until its token expires; then
/// `purge` removes it, since the token itself would be refused as expired.
struct NonceLedger: Sendable {
    /// Records the nonce as used, in the caller's write; false when it already was. A write that
    /// rolls back (a refused sign-in, PostgreSQL's retry) leaves the nonce unused.
    func use(_ nonce: OneTimeNonce, of provider: IdentityProvider, now: Int64, on connection: any DatabaseConnection) throws -> Bool {
        let key = "\(provider.rawValue):\(nonce.claim)"
        // An expired row (not purged yet) no longer protects anything: its token is refused anyway.
        try connection.execute("DELETE FROM used_nonces WHERE nonce_key = \(key) AND expires_at < \(now)")
        // ON CONFLICT rather than a caught unique violation: PostgreSQL aborts the transaction
        // on the violation, and the caller decides what the refusal is.
        return try connection.execute("""
            INSERT INTO used_nonces (nonce_key, expires_at) VALUES (\(key), \(nonce.expiresAtMillis))
            ON CONFLICT (nonce_key) DO NOTHING
            """) == 1
    }

    /// Removes the nonces whose tokens have expired.
    func purge(now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM used_nonces WHERE expires_at < \(now)")
    }
}
