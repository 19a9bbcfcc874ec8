import Storage

/// The SQL of the `identities` table (migration 0019): which provider identity signs into
/// which account. Every method runs on a connection lent by a `read` or `write` closure.
struct IdentityStore: Sendable {
    /// Why a link could not be written.
    enum LinkConflict: Error {
        /// The identity already signs into an account (maybe this one).
        case identityLinked
        /// The account already has an identity of this provider.
        case providerLinked
    }

    /// The account `(provider, subject)` signs into.
    func account(provider: IdentityProvider, subject: String, on connection: any DatabaseConnection) throws -> String? {
        try connection.fetchValue("""
            SELECT user_id FROM identities WHERE provider = \(provider.rawValue) AND subject = \(subject)
            """, as: String.self)
    }

    /// The providers linked to an account, in the order of `IdentityProvider.allCases`.
    func providers(of userID: String, on connection: any DatabaseConnection) throws -> [IdentityProvider] {
        let names: [String] = try connection.fetchAll("SELECT provider FROM identities WHERE user_id = \(userID)").map { try $0.decode("provider") }
        return IdentityProvider.allCases.filter { names.contains($0.rawValue) }
    }

    /// Links `(provider, subject)` to the account; `LinkConflict` when either key is taken.
    /// `vouched`: whether the account's email was verified at this moment (a completed reset
    /// removes the identities linked while it was not, `removeUnvouched`).
    func link(_ identity: VerifiedIdentity, to userID: String, vouched: Bool, now: Int64, on connection: any DatabaseConnection) throws {
        do {
            try connection.execute("""
                INSERT INTO identities (provider, subject, user_id, created_at, vouched)
                VALUES (\(identity.provider.rawValue), \(identity.subject), \(userID), \(now), \(vouched))
                """)
        } catch {
            // `execute` throws StorageError only. (A `catch let … as … where` here crashed
            // swift-frontend 6.3.1 in MandatoryAllocBoxToStack.)
            if error.isUniqueViolation(on: "subject") { throw LinkConflict.identityLinked }
            if error.isUniqueViolation(on: "user_id") { throw LinkConflict.providerLinked }
            throw error
        }
    }

    /// Removes every identity linked to the account while its email was unverified; answers
    /// how many went. A completed password reset calls it: the mailbox is proven, and an
    /// identity someone linked before that (to an account made with another's address) must
    /// not keep them a way in.
    func removeUnvouched(from userID: String, on connection: any DatabaseConnection) throws -> Int {
        try connection.execute("DELETE FROM identities WHERE user_id = \(userID) AND vouched = \(false)")
    }

    /// Removes the account's identity of `provider`; false when it had none.
    func unlink(_ provider: IdentityProvider, from userID: String, on connection: any DatabaseConnection) throws -> Bool {
        try connection.execute("DELETE FROM identities WHERE user_id = \(userID) AND provider = \(provider.rawValue)") > 0
    }
}
