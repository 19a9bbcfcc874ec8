import Crypto
import Storage

/// How an account can be signed into (API.md User(me) `identities` and `hasPassword`).
public struct SignInMethods: Sendable, Equatable {
    /// The linked providers, in `IdentityProvider.allCases` order.
    public var identities: [IdentityProvider]
    /// Whether the account has a password that can be verified (an account made by a provider,
    /// or imported without a usable hash, has none).
    public var hasPassword: Bool

    public init(identities: [IdentityProvider], hasPassword: Bool) {
        self.identities = identities
        self.hasPassword = hasPassword
    }

    /// How many ways in the account has: the one it must never lose.
    var count: Int { identities.count + (hasPassword ? 1 : 0) }

    /// The account's ways in, read on the caller's connection. `hasher` judges the stored hash
    /// (`isVerifiable`): `Accounts` passes its own, whose ceiling follows `--bcrypt-cost`.
    public static func read(userID: String, on connection: any DatabaseConnection, hasher: PasswordHasher = PasswordHasher()) throws -> SignInMethods {
        let hash = try connection.fetchValue("SELECT password_hash FROM users WHERE id = \(userID)", as: String.self)
        return SignInMethods(identities: try IdentityStore().providers(of: userID, on: connection), hasPassword: hash.map(hasher.isVerifiable) ?? false)
    }
}

/// What the caller proves again before a sensitive change (an email change, a password
/// change, deleting the account): the password, or a fresh token of a provider linked to the
/// account (the only proof an account without a password can give).
public enum Confirmation: Sendable {
    case password(String)
    case identity(VerifiedIdentity)
}

/// Sign-in with a provider's identity and the links between identities and accounts (API.md
/// "Sign in with Apple, Google and Facebook; imported social accounts").
///
/// The identity arrives verified (`IdentityVerifier`, outside any transaction); everything
/// here is database work. The rules: an identity signs into the account it is linked to (bans
/// apply; a password lockout does not, since failed passwords say nothing of the provider's
/// proof); an unlinked one whose vouched-for email is an existing account's is refused
/// (`accountExists`), never linked by itself, since whoever controls the address at a provider
/// is not proven to own the account; otherwise it makes a new account without a password,
/// with the email only when the provider vouches for it (an unverified one may be someone
/// else's: account pre-hijacking). Linking needs a fresh proof besides the session. A token
/// with a nonce is accepted once. An account never loses its last way in.
extension Accounts {
    /// A provider sign-in's session and whether it made the account.
    public struct ProviderSignIn: Sendable {
        public let signedIn: SignedIn
        public let created: Bool
    }

    /// What a new account made by a provider sign-in may be given by the app.
    public struct NewAccountDetails: Sendable {
        /// The username asked for; nil: derived from the name or email and made unique.
        public var username: String?
        public var displayName: String?
        public var locale: AccountLocale

        public init(username: String?, displayName: String?, locale: AccountLocale) {
            self.username = username
            self.displayName = displayName
            self.locale = locale
        }
    }

    /// Signs `identity` in, making an account for it when it has none. `mayCreate` runs before
    /// an account is made (the sign-up limit); it throws to refuse. No verification mail is
    /// ever due: the account has the provider's address only when the provider vouched for it.
    public func signIn(
        with identity: VerifiedIdentity, newAccount details: NewAccountDetails, mayCreate: () throws -> Void = {}
    ) throws -> ProviderSignIn {
        // Given names are judged before any work, and only matter when an account is made.
        let username = try details.username.map { try Validation.username($0) }
        let displayName = try details.displayName.map { try Validation.displayName($0) }
        let email = identity.vouchedEmail
        let token = try SessionToken.generate()
        var checkedCreation = false
        // Three rounds at most: a first sign-in of the same identity on another request (or
        // server) may make the account between our look-up and our insert (its identity or its
        // email then collides), and the next round signs into that account; a derived username
        // taken in the same instant gets a new one.
        for _ in 0..<3 {
            do {
                return try database.write { connection in
                    let now = clock.nowMillis()
                    try useNonce(of: identity, now: now, refused: .invalidCredentials, on: connection)
                    if let userID = try identities.account(provider: identity.provider, subject: identity.subject, on: connection) {
                        let account = try admit(userID: userID, on: connection)
                        try startSession(token: token, userID: account.id, on: connection)
                        return ProviderSignIn(signedIn: SignedIn(account: account, token: token, methods: try signInMethods(userID: account.id, on: connection)),
                                              created: false)
                    }
                    if let email, try store.hasAccount(email: email, on: connection) { throw AuthError.accountExists }
                    if !checkedCreation {
                        try mayCreate()
                        checkedCreation = true
                    }
                    let id = try SecureRandom.alphanumericID()
                    let chosen = try username ?? freeUsername(for: identity, displayName: displayName, on: connection)
                    // `freeUsername` already kept clear of ids; a given name is checked as sign-up checks it.
                    if username != nil, try store.isID(ofAnotherAccount: chosen, on: connection) {
                        throw AuthError.validation(field: "username", message: "That username is taken.")
                    }
                    let account: Account
                    do {
                        account = try store.insert(.init(
                            id: id, username: chosen, email: email ?? "\(id)@users.invalid",
                            displayName: displayName ?? identity.name.flatMap { try? Validation.displayName(String($0.prefix(100))) } ?? chosen,
                            passwordHash: PasswordHasher.noPassword, role: .user, emailVerified: email != nil,
                            locale: details.locale, createdAt: now
                        ), on: connection)
                    } catch AuthError.usernameTaken where username != nil {
                        throw AuthError.validation(field: "username", message: "That username is taken.")
                    }
                    try identities.link(identity, to: account.id, vouched: account.emailVerified, now: now, on: connection)
                    try startSession(token: token, userID: account.id, on: connection)
                    let methods = SignInMethods(identities: [identity.provider], hasPassword: false)
                    return ProviderSignIn(signedIn: SignedIn(account: account, token: token, methods: methods), created: true)
                }
            } catch IdentityStore.LinkConflict.identityLinked {
                continue
            } catch AuthError.usernameTaken where username == nil {
                continue
            } catch AuthError.emailTaken {
                // The email was free at the look-up and taken by the insert: by a concurrent first
                // sign-in of this identity (the next round signs into it) or by another account
                // (the next round's look-up refuses with `accountExists`).
                continue
            }
        }
        throw AuthError.conflict("The account is being changed by another request; try again.")
    }

    /// The account an identity signs into, when a ban does not keep it out. A password lockout
    /// does not (API.md): anyone can fail ten passwords for a username, and that must not shut
    /// a password-less account out of its provider sign-in.
    private func admit(userID: String, on connection: any DatabaseConnection) throws -> Account {
        guard let account = try store.find(id: userID, on: connection) else { throw AuthError.invalidCredentials }
        if account.isBanned { throw AuthError.accountBanned }
        return account
    }

    /// Uses up the token's nonce, when it has one, in the caller's write: a second use of the
    /// same token is `refused` (a sign-in's 401, a confirmation's 403).
    private func useNonce(of identity: VerifiedIdentity, now: Int64, refused: AuthError, on connection: any DatabaseConnection) throws {
        guard let nonce = identity.nonce else { return }
        guard try nonces.use(nonce, of: identity.provider, now: now, on: connection) else { throw refused }
    }

    /// A username no account has, from the display name, the provider's name or the email's
    /// local part (letters, digits, `_` and `.` kept), with digits added when it is taken.
    private func freeUsername(for identity: VerifiedIdentity, displayName: String?, on connection: any DatabaseConnection) throws -> String {
        let sources = [displayName, identity.name, identity.email.map { String($0.prefix { $0 != "@" }) }]
        let base = sources.lazy.compactMap { $0.map(Self.usernameStem) }.first { $0.utf8.count >= 3 } ?? "\(identity.provider.rawValue)_user"
        var candidate = base
        for attempt in 0..<8 {
            // Four digits first, eight when those keep colliding (a popular name); 28 characters at most.
            if attempt > 0 { candidate = base + String(attempt < 4 ? Int.random(in: 1_000...9_999) : Int.random(in: 10_000_000...99_999_999)) }
            if try store.find(username: candidate, on: connection) == nil, try !store.isID(ofAnotherAccount: candidate, on: connection) {
                return candidate
            }
        }
        throw AuthError.usernameTaken
    }

    /// `text` as a username's first 20 characters: ASCII letters and digits kept, spaces and
    /// `-` as `_`, runs of `_` and `.` folded, other characters dropped.
    static func usernameStem(_ text: String) -> String {
        var stem = ""
        for scalar in text.unicodeScalars {
            let character: Character?
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": character = Character(scalar)
            case " ", "-", "_": character = "_"
            case ".": character = "."
            default: character = nil
            }
            guard let character else { continue }
            if character == "_" || character == ".", stem.last == "_" || stem.last == "." || stem.isEmpty { continue }
            stem.append(character)
            if stem.count == 20 { break }
        }
        while stem.last == "_" || stem.last == "." { stem.removeLast() }
        return stem
    }

    // MARK: The caller's identities

    /// The caller's own account and its ways in, read together (User(me)).
    public func ownAccount(id: String) throws -> (account: Account, methods: SignInMethods)? {
        try database.read { connection in
            try store.find(id: id, on: connection).map { ($0, try signInMethods(userID: id, on: connection)) }
        }
    }

    /// The ways into the account.
    public func signInMethods(userID: String) throws -> SignInMethods {
        try database.read { connection in try signInMethods(userID: userID, on: connection) }
    }

    func signInMethods(userID: String, on connection: any DatabaseConnection) throws -> SignInMethods {
        try SignInMethods.read(userID: userID, on: connection, hasher: hasher)
    }

    /// Links `identity` to the caller's account (API.md `POST /v1/users/me/identities/{provider}`)
    /// after `proof`: the password for an account with one, else a fresh token of an identity
    /// already linked (a session alone is not enough: a stolen one would link the thief's
    /// provider, which outlives a password change and "log out everywhere"). A missing or wrong
    /// proof is `confirmationRefused`, naming the field the app should fill. Linking the identity
    /// already linked is a no-op. `conflict` when it signs into another account, or the account
    /// has another identity of that provider. `linked` runs in the link's transaction (the mail
    /// that tells the account's address).
    public func link(
        _ identity: VerifiedIdentity, to caller: Identity, proof: Confirmation?,
        linked: (Account, any DatabaseConnection) throws -> Void = { _, _ in }
    ) throws {
        let field = try signInMethods(userID: caller.userID).hasPassword ? "currentPassword" : "proof"
        switch proof {
        case nil:
            throw AuthError.confirmationRefused(field: field)
        case .password where field == "proof", .identity where field == "currentPassword":
            // The proof an account of this kind gives, and no other (API.md): a password-less
            // account has no password to give; one with a password gives it.
            throw AuthError.confirmationRefused(field: field)
        case let proof?:
            do {
                try confirm(caller, proof)
            } catch AuthError.wrongPassword, AuthError.identityNotAccepted {
                throw AuthError.confirmationRefused(field: field)
            }
        }
        try database.write { connection in
            try lockAccountRow(caller.userID, on: connection)
            let now = clock.nowMillis()
            try useNonce(of: identity, now: now, refused: .identityNotAccepted, on: connection)
            switch try identities.account(provider: identity.provider, subject: identity.subject, on: connection) {
            case caller.userID?: return
            case .some: throw AuthError.conflict("That \(identity.provider.displayName) account is linked to another account.")
            case nil: break
            }
            guard let account = try store.find(id: caller.userID, on: connection) else { throw AuthError.invalidSession }
            do {
                try identities.link(identity, to: caller.userID, vouched: account.emailVerified, now: now, on: connection)
            } catch IdentityStore.LinkConflict.providerLinked {
                throw AuthError.conflict("Another \(identity.provider.displayName) account is linked; unlink it first.")
            } catch IdentityStore.LinkConflict.identityLinked {
                throw AuthError.conflict("That \(identity.provider.displayName) account is linked to another account.")
            }
            try linked(account, connection)
        }
    }

    /// Unlinks the caller's identity of `provider`, unless it is the account's last way in
    /// (`conflict`); `notFound` when none is linked.
    public func unlink(_ provider: IdentityProvider, from caller: Identity) throws {
        try database.write { connection in
            try lockAccountRow(caller.userID, on: connection)
            let methods = try signInMethods(userID: caller.userID, on: connection)
            guard methods.identities.contains(provider) else { throw AuthError.notFound }
            guard methods.count > 1 else {
                throw AuthError.conflict("\(provider.displayName) is this account's only way to sign in; set a password or link another first.")
            }
            _ = try identities.unlink(provider, from: caller.userID, on: connection)
        }
    }

    /// Takes the account row's write lock before a read that decides a write: on PostgreSQL two
    /// unlinks of different providers could otherwise each see the other's identity and leave
    /// the account with no way in. (SQLite has one writer at a time anyway.)
    private func lockAccountRow(_ userID: String, on connection: any DatabaseConnection) throws {
        guard try connection.execute("UPDATE users SET updated_at = updated_at WHERE id = \(userID)") > 0 else { throw AuthError.invalidSession }
    }

    /// Checks a confirmation: the password (see `checkPassword`), or an identity linked to the
    /// caller's account. A foreign identity is `wrongPassword` (403: the app stays signed in).
    func confirm(_ caller: Identity, _ confirmation: Confirmation) throws {
        switch confirmation {
        case .password(let password):
            try checkPassword(caller, password)
        case .identity(let identity):
            // A write, not a read: the token's nonce is used up here, so a confirmation token
            // replays as little as a sign-in's.
            try database.write { connection in
                let owner = try identities.account(provider: identity.provider, subject: identity.subject, on: connection)
                guard owner == caller.userID else { throw AuthError.identityNotAccepted }
                try useNonce(of: identity, now: clock.nowMillis(), refused: .identityNotAccepted, on: connection)
            }
        }
    }
}

extension IdentityProvider {
    /// The provider's name as people write it, for messages.
    public var displayName: String {
        switch self {
        case .apple: "Apple"
        case .google: "Google"
        case .facebook: "Facebook"
        case .twitter: "Twitter"
        }
    }
}
