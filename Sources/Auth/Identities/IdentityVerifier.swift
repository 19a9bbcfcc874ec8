/// The ways into an account besides a password (API.md "Sign in with Apple, Google and
/// Facebook; imported social accounts"). Twitter only arrives as a link kept from a Parse
/// export's `authData`: nothing verifies a Twitter token.
public enum IdentityProvider: String, Sendable, CaseIterable {
    case apple, google, facebook, twitter
}

/// Who a provider's token says the caller is: the provider's stable id for them (`sub`, or
/// Facebook's user id) and, when the provider shares them, an email and a name.
public struct VerifiedIdentity: Sendable, Equatable {
    public let provider: IdentityProvider
    public let subject: String
    public let email: String?
    public let emailVerified: Bool
    public let name: String?

    public init(provider: IdentityProvider, subject: String, email: String?, emailVerified: Bool, name: String?) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
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
/// waits for the provider.
public protocol IdentityVerifier: Sendable {
    var provider: IdentityProvider { get }
    func verify(token: String, nonce: String?) throws(IdentityVerificationError) -> VerifiedIdentity
}
