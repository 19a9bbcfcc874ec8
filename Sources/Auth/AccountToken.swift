import Crypto
import Storage

/// What a mailed token lets its holder do, and for how long (API.md "Email verification and
/// password reset").
public enum AccountTokenPurpose: String, Sendable, CaseIterable {
    case verifyEmail = "verify_email"
    case resetPassword = "reset_password"

    public var lifetimeMillis: Int64 {
        switch self {
        case .verifyEmail: 24 * 3_600_000
        case .resetPassword: 3_600_000
        }
    }
}

/// Makes the tokens that go into mails.
///
/// A token is `base64url(HMAC(key, purpose ":" nonce))`: the database keeps only the token's
/// SHA-256 (`account_tokens`), and the outbox job that mails it keeps only the nonce. Neither
/// alone, nor both together, gives the link back without the key, which lives outside the
/// database (derived from the cursor secret). So the mail worker can rebuild the link after a
/// retry or a crash, and a leaked database still holds no usable link.
public struct AccountTokenMint: Sendable {
    private let key: HMACKey

    public init(key: HMACKey) { self.key = key }

    /// A key of its own for tokens, derived from another secret (the cursor secret), so the
    /// two uses never share a key.
    public static func derived(from secret: HMACKey) -> AccountTokenMint {
        AccountTokenMint(key: HMACKey(bytes: secret.authenticationCode(for: Array("pacenote account tokens v1".utf8))))
    }

    /// A fresh nonce: 128 random bits, hex.
    public static func newNonce() throws -> String {
        Hex.encode(try SecureRandom.bytes(16))
    }

    /// The token mailed for `nonce`: 256 bits, base64url (43 characters).
    public func token(_ purpose: AccountTokenPurpose, nonce: String) -> String {
        Base64URL.encode(key.authenticationCode(for: Array("\(purpose.rawValue):\(nonce)".utf8)))
    }

    /// What `account_tokens` stores for a token: its SHA-256, hex.
    public static func storageKey(_ token: String) -> String {
        Hex.encode(SHA256.hash(token))
    }
}

/// The SQL of `account_tokens`: one live token per account and purpose.
public struct AccountTokenStore: Sendable {
    public init() {}

    /// Stores a token's key for the account, replacing any older token of that purpose.
    ///
    /// One upsert rather than a delete and an insert: two requests racing on PostgreSQL would
    /// both delete nothing and the second insert would fail on `UNIQUE (user_id, purpose)`;
    /// here the second waits for the first and replaces its row (or is retried as a
    /// serialization failure), as SQLite's single writer makes it.
    func replace(userID: String, purpose: AccountTokenPurpose, tokenKey: String, emailKey: String, now: Int64,
                 on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO account_tokens (token_hash, user_id, purpose, email_key, created_at, expires_at)
            VALUES (\(tokenKey), \(userID), \(purpose.rawValue), \(emailKey), \(now), \(now + purpose.lifetimeMillis))
            ON CONFLICT (user_id, purpose) DO UPDATE SET token_hash = excluded.token_hash, email_key = excluded.email_key,
                created_at = excluded.created_at, expires_at = excluded.expires_at
            """)
    }

    /// Uses a token up: deletes it whatever its state and answers its account and address when
    /// it was of this purpose and still alive. Single use, since the row is gone after.
    func consume(purpose: AccountTokenPurpose, tokenKey: String, now: Int64, on connection: any DatabaseConnection) throws -> (userID: String, emailKey: String)? {
        guard let row = try connection.fetchOne("""
            DELETE FROM account_tokens WHERE token_hash = \(tokenKey) AND purpose = \(purpose.rawValue)
            RETURNING user_id, email_key, expires_at
            """) else { return nil }
        let expiresAt: Int64 = try row.decode("expires_at")
        guard expiresAt > now else { return nil }
        return (try row.decode("user_id"), try row.decode("email_key"))
    }

    /// Whether the token with this key is still the live one (not replaced, used or expired):
    /// a queued mail whose token was replaced meanwhile is not sent.
    public func isLive(tokenKey: String, now: Int64, on connection: any DatabaseConnection) throws -> Bool {
        try connection.fetchOne("SELECT 1 FROM account_tokens WHERE token_hash = \(tokenKey) AND expires_at > \(now)") != nil
    }

    /// Ends every token of `purpose` the account has: an email change, a password change and a
    /// completed reset end its reset tokens (API.md), so a link mailed before cannot be used after.
    func endAll(userID: String, purpose: AccountTokenPurpose, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM account_tokens WHERE user_id = \(userID) AND purpose = \(purpose.rawValue)")
    }

    func deleteExpired(now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM account_tokens WHERE expires_at <= \(now)")
    }
}
