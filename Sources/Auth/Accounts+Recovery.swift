import Storage

/// A verification or reset mail to send: whose, and the nonce its token is made from
/// (`AccountTokenMint`). This, not the token, is what the outbox keeps.
public struct AccountMail: Sendable, Equatable {
    public let purpose: AccountTokenPurpose
    public let userID: String
    public let nonce: String

    public init(purpose: AccountTokenPurpose, userID: String, nonce: String) {
        self.purpose = purpose
        self.userID = userID
        self.nonce = nonce
    }
}

/// A reset asked for an address, before anyone looked whether an account has it: what the
/// outbox keeps for the mail worker (never a token). The address as typed and the language the
/// request asked in are for the mail that tells an address without an account so.
public struct PasswordResetRequest: Sendable, Equatable {
    public let email: String
    public let locale: AccountLocale
    public let nonce: String

    public var emailKey: String { Validation.key(email) }

    public init(email: String, locale: AccountLocale, nonce: String) {
        self.email = email
        self.locale = locale
        self.nonce = nonce
    }
}

/// Email verification and password reset (API.md): single-use tokens stored as their hash, a
/// new one replacing the old; mails are queued by the caller's `enqueue`, inside the same
/// transaction as the token, so a token exists if and only if its mail is on its way.
extension Accounts {
    /// The mint's token for a queued mail, and whether it is still the live one.
    public func token(for mail: AccountMail) -> String {
        mint.token(mail.purpose, nonce: mail.nonce)
    }

    /// Makes a new verification token for the account (replacing an older one) and queues
    /// its mail. Runs inside the caller's write.
    public func issueEmailVerification(
        for account: Account, on connection: any DatabaseConnection, enqueue: (AccountMail, any DatabaseConnection) throws -> Void
    ) throws {
        try issue(.verifyEmail, userID: account.id, emailKey: Validation.key(account.email), on: connection, enqueue: enqueue)
    }

    /// `POST /v1/users/me/email-verification`: mails a new link for the caller's address.
    public func requestEmailVerification(_ identity: Identity, enqueue: (AccountMail, any DatabaseConnection) throws -> Void) throws {
        try database.write { connection in
            guard let account = try store.find(id: identity.userID, on: connection) else { throw AuthError.invalidSession }
            try issueEmailVerification(for: account, on: connection, enqueue: enqueue)
        }
    }

    /// `POST /v1/email-verifications/confirm`: the address the token was made for becomes
    /// verified, if it is still the account's address.
    public func confirmEmail(token: String) throws {
        let key = AccountTokenMint.storageKey(token)
        let now = clock.nowMillis()
        try database.write { connection in
            guard let (userID, emailKey) = try tokens.consume(purpose: .verifyEmail, tokenKey: key, now: now, on: connection) else {
                throw AuthError.invalidToken
            }
            let changed = try connection.execute("""
                UPDATE users SET email_verified = TRUE, updated_at = \(now) WHERE id = \(userID) AND email_key = \(emailKey)
                """)
            guard changed == 1 else { throw AuthError.invalidToken }
        }
    }

    /// `POST /v1/password-resets`: queues a reset request for the address, whether or not it
    /// belongs to an account. The request does the same work either way (one outbox job, in one
    /// write, with nothing read first), so neither the answer nor its time tells; the mail worker
    /// resolves the address later (`issuePasswordReset`), off the request path.
    public func requestPasswordReset(
        email: String, locale: AccountLocale = .english, enqueue: (PasswordResetRequest, any DatabaseConnection) throws -> Void
    ) throws {
        let request = PasswordResetRequest(email: email, locale: locale, nonce: try AccountTokenMint.newNonce())
        try database.write { connection in try enqueue(request, connection) }
    }

    /// The mail worker's half of a reset request: makes the reset token for the account with the
    /// requested address (replacing an older one) and answers the mail to send, or nil when no
    /// account has that address. Running it again for the same request makes the same token.
    public func issuePasswordReset(_ request: PasswordResetRequest) throws -> AccountMail? {
        let tokenKey = AccountTokenMint.storageKey(mint.token(.resetPassword, nonce: request.nonce))
        let now = clock.nowMillis()
        return try database.write { connection in
            let userID: String? = try connection.fetchValue("SELECT id FROM users WHERE email_key = \(request.emailKey)", as: String?.self) ?? nil
            guard let userID else { return nil }
            try tokens.replace(userID: userID, purpose: .resetPassword, tokenKey: tokenKey, emailKey: request.emailKey, now: now, on: connection)
            return AccountMail(purpose: .resetPassword, userID: userID, nonce: request.nonce)
        }
    }

    /// `POST /v1/password-resets/confirm`: sets the new password and ends every session of the
    /// account. The password rules of sign-up apply (checked before the token is used up).
    /// Whoever holds the link proved they own the address, so the reset also verifies it, lifts
    /// a lockout of the account and its names (someone guessing passwords must not keep the
    /// owner out), and removes every identity linked while the address was unverified: whoever
    /// made the account first with someone else's address and linked their own provider keeps
    /// no way in (API.md "Taking an account back").
    public func resetPassword(token: String, password: String) throws {
        let password = try Validation.password(password)
        let hash = try hasher.hash(password)
        let key = AccountTokenMint.storageKey(token)
        let now = clock.nowMillis()
        try database.write { connection in
            guard let (userID, emailKey) = try tokens.consume(purpose: .resetPassword, tokenKey: key, now: now, on: connection) else {
                throw AuthError.invalidToken
            }
            // The link proves ownership of the address it was mailed to, and only while that is
            // still the account's (an email change also ends the tokens; this is the backstop).
            let current: String? = try connection.fetchValue("SELECT email_key FROM users WHERE id = \(userID)", as: String?.self) ?? nil
            guard current == emailKey else { throw AuthError.invalidToken }
            try tokens.endAll(userID: userID, purpose: .resetPassword, on: connection)
            try store.setPasswordHash(hash, id: userID, now: now, on: connection)
            try sessions.deleteAll(userID: userID, on: connection)
            _ = try identities.removeUnvouched(from: userID, on: connection)
            // (An address under `.invalid`, the stand-in of an account without one, is never
            // verified: only an operator's hand-made link resets such an account.)
            try connection.execute("UPDATE users SET email_verified = \(true) WHERE id = \(userID) AND email_key NOT LIKE \("%.invalid")")
            if let row = try connection.fetchOne("SELECT username_key, email_key FROM users WHERE id = \(userID)") {
                try throttle.recordSuccess(keys: [LoginThrottle.accountKey(id: userID), try row.decode("username_key"), try row.decode("email_key")],
                                           on: connection)
            }
        }
        cache.removeAll()
    }

    /// `pacenote user reset-link USERNAME`: a reset token for an operator to pass on by hand
    /// (no mail is queued). Replaces any older reset token of the account.
    public func makeResetToken(username: String) throws -> (Account, String) {
        let nonce = try AccountTokenMint.newNonce()
        let token = mint.token(.resetPassword, nonce: nonce)
        let now = clock.nowMillis()
        let account = try database.write { connection in
            guard let account = try store.find(username: username, on: connection) else { throw AuthError.notFound }
            try tokens.replace(userID: account.id, purpose: .resetPassword, tokenKey: AccountTokenMint.storageKey(token),
                               emailKey: Validation.key(account.email), now: now, on: connection)
            return account
        }
        return (account, token)
    }

    /// Whether a queued mail's token is still the live one; a mail whose token was replaced,
    /// used or expired meanwhile is not sent.
    public func isLive(_ mail: AccountMail, on connection: any DatabaseConnection) throws -> Bool {
        try tokens.isLive(tokenKey: AccountTokenMint.storageKey(token(for: mail)), now: clock.nowMillis(), on: connection)
    }

    private func issue(
        _ purpose: AccountTokenPurpose, userID: String, emailKey: String, on connection: any DatabaseConnection,
        enqueue: (AccountMail, any DatabaseConnection) throws -> Void
    ) throws {
        let nonce = try AccountTokenMint.newNonce()
        let key = AccountTokenMint.storageKey(mint.token(purpose, nonce: nonce))
        try tokens.replace(userID: userID, purpose: purpose, tokenKey: key, emailKey: emailKey, now: clock.nowMillis(), on: connection)
        try enqueue(AccountMail(purpose: purpose, userID: userID, nonce: nonce), connection)
    }
}
