/// The ways into an account besides a password (API.md "Sign in with Apple, Google and
/// Facebook; imported social accounts"). Twitter only arrives as a link kept from a Parse
/// export's `authData`: nothing verifies a Twitter token.
public enum IdentityProvider: String, Sendable, CaseIterable {
    case apple, google, facebook, twitter
}

/// Who a provider's token says the caller is: the provider's stable id for them (`sub`, or
/// Facebook's app-scoped user id) and, when the provider shares them, an email and a name.
/// `emailVerified` is true only when the provider says so (Apple and Google do; Facebook does
/// not, so it is always false there).
public struct VerifiedIdentity: Sendable, Equatable {
    public let provider: IdentityProvider
    public let subject: String
    public let email: String?
    public let emailVerified: Bool
    public let name: String?
    /// The token's `nonce`, when it has one: such a token is accepted once (`NonceLedger`).
    public let nonce: OneTimeNonce?

    public init(provider: IdentityProvider, subject: String, email: String?, emailVerified: Bool, name: String?, nonce: OneTimeNonce? = nil) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.nonce = nonce
    }

    /// The email when the provider vouches for it (Apple; Google with `email_verified: true`),
    /// and it has an address's shape. Only such an address is ever stored or compared with
    /// accounts: an unverified one may be anyone's (account pre-hijacking).
    public var vouchedEmail: String? {
        guard emailVerified, let email, Validation.isValidEmail(email) else { return nil }
        return email
    }
}

/// A token's `nonce` claim and until when the token could be accepted (its `exp` plus the
/// leeway, in milliseconds): how long the ledger must remember it was used.
public struct OneTimeNonce: Sendable, Equatable {
    public let claim: String
    public let expiresAtMillis: Int64

    public init(claim: String, expiresAtMillis: Int64) {
        self.claim = claim
        self.expiresAtMillis = expiresAtMillis
    }
}

/// Why a token did not sign anyone in.
public enum IdentityVerificationError: Error, Sendable, Equatable {
    /// Bad, expired, foreign or forged: 401 `invalid_credentials`. `reason` is for the log and
    /// names the check that failed, never the token.
    case invalidToken(reason: String)
    /// The provider's keys or API did not answer in time: 503 `unavailable`.
    case unavailable
    /// The server has no settings for this provider: 503 `unavailable`.
    case notConfigured
}

/// Checks one provider's tokens. Implementations are thread-safe and bound how long a call
/// waits for the provider (SignInProviders: `OIDCVerifier` for Apple and Google,
/// `FacebookVerifier`, `NotConfiguredVerifier` for a provider without settings and for Twitter).
/// Auth only declares the seam: it never touches the network itself.
public protocol IdentityVerifier: Sendable {
    /// The provider whose tokens this checks.
    var provider: IdentityProvider { get }
    /// Who `token` names, checked with the provider. Blocks the calling thread, at most the
    /// implementation's bound (a few seconds); call it outside any database transaction.
    /// - Parameters:
    ///   - token: Apple's `identityToken`, Google's `idToken`, Facebook's `accessToken`.
    ///   - nonce: the raw value the app says it asked the provider to embed as its SHA-256 in
    ///     hex (Apple's and Firebase's convention); nil when the app sent none.
    func verify(token: String, nonce: String?) throws(IdentityVerificationError) -> VerifiedIdentity
}
