import Auth
import Crypto
import JSON
import Telemetry

/// Sign in with Apple and with Google: the app's ID token (Apple's `identityToken`, Google's
/// `idToken`) checked against the provider's published keys.
///
/// A call reads the token's header first, and only an RS256 token with a `kid` ever reaches the
/// key cache (so `alg: none` or HS256 tokens cost the provider nothing); the key comes from the
/// `JWKSCache` (which may fetch, bounded by the client's timeout); then `IDTokenCheck` judges the
/// signature, issuer, audience, times (`exp`, `iat`, `nbf`), `crit`, nonce and subject. The
/// nonce: when the caller gives one, the token's `nonce` claim must equal its SHA-256 in
/// lower-case hex (Apple's guide has apps send the hash to Apple and keep the raw value, which
/// is what reaches us), never the value itself; a token with a nonce claim is handed on with it,
/// and `Accounts` accepts it once.
public final class OIDCVerifier: IdentityVerifier {
    public struct Configuration: Sendable {
        public var provider: IdentityProvider
        /// The `iss` values accepted.
        public var issuers: Set<String>
        /// This server's app ids at the provider (`--apple-audience`, `--google-audience`):
        /// the token's `aud` (a string or an array) must hold one.
        public var audiences: Set<String>
        /// The provider's JWKS and how it is cached.
        public var keys: JWKSCache.Configuration
        /// Clock skew allowed on `exp` and `iat`.
        public var leewaySeconds: Int64 = 60

        public init(provider: IdentityProvider, issuers: Set<String>, audiences: Set<String>, keys: JWKSCache.Configuration) {
            self.provider = provider
            self.issuers = issuers
            self.audiences = audiences
            self.keys = keys
        }

        public static let appleIssuer = "https://appleid.apple.com"
        public static let appleJWKSURL = "https://appleid.apple.com/auth/keys"
        public static let googleIssuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]
        public static let googleJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"

        /// Sign in with Apple: issuer `https://appleid.apple.com`; `audiences` are the app's
        /// bundle ids (and Services IDs, for the web).
        public static func apple(audiences: Set<String>, jwksURL: String = appleJWKSURL) -> Configuration {
            Configuration(provider: .apple, issuers: [appleIssuer], audiences: audiences, keys: JWKSCache.Configuration(url: jwksURL))
        }

        /// Google Sign-In: issuers `https://accounts.google.com` and `accounts.google.com`;
        /// `audiences` are the OAuth client ids of the apps.
        public static func google(audiences: Set<String>, jwksURL: String = googleJWKSURL) -> Configuration {
            Configuration(provider: .google, issuers: googleIssuers, audiences: audiences, keys: JWKSCache.Configuration(url: jwksURL))
        }
    }

    public let provider: IdentityProvider
    public let keys: JWKSCache
    private let check: IDTokenCheck
    private let wallClock: any WallClock

    /// - Parameters:
    ///   - wallClock: the time `exp` and `iat` are judged against.
    ///   - monotonicClock: the key cache's clock (its max-age and refresh intervals).
    /// - Throws: `ProviderConfigurationError`: no audience, no issuer, or a bad JWKS URL.
    public init(_ configuration: Configuration, client: ProviderHTTPClient, logger: Logger? = nil, metrics: MetricsRegistry? = nil,
                wallClock: any WallClock = SystemClock(), monotonicClock: @escaping @Sendable () -> Int64 = monotonicMillis) throws(ProviderConfigurationError) {
        guard !configuration.audiences.isEmpty, !configuration.audiences.contains(where: \.isEmpty) else {
            throw .incomplete(provider: configuration.provider.rawValue, missing: "--\(configuration.provider.rawValue)-audience")
        }
        guard !configuration.issuers.isEmpty else {
            throw .incomplete(provider: configuration.provider.rawValue, missing: "an issuer")
        }
        guard configuration.provider == .apple || configuration.provider == .google else {
            throw .outOfRange(setting: "provider", reason: "\(configuration.provider.rawValue) does not sign in with ID tokens")
        }
        provider = configuration.provider
        keys = try JWKSCache(configuration.keys, provider: configuration.provider, client: client, logger: logger, metrics: metrics, clock: monotonicClock)
        var check = IDTokenCheck(provider: configuration.provider, issuers: configuration.issuers, audiences: configuration.audiences)
        check.leewaySeconds = configuration.leewaySeconds
        self.check = check
        self.wallClock = wallClock
    }

    /// Who the token names. Waits for the provider's keys at most the client's timeout.
    /// - Throws: `.invalidToken` (with the failed check as its reason) or `.unavailable`.
    public func verify(token: String, nonce: String?) throws(IdentityVerificationError) -> VerifiedIdentity {
        let now = wallClock.nowMillis() / 1_000
        guard let header = IDTokenCheck.header(of: token) else {
            // Too long, not three parts, or a header that is not JSON: the check says which.
            return try check.verify(token, key: nil, now: now, nonce: nonce)
        }
        guard header.algorithm == "RS256" else { return try check.verify(token, key: nil, now: now, nonce: nonce) }
        guard let kid = header.keyID else { throw .invalidToken(reason: "no kid") }
        let key = try keys.key(for: kid)
        return try check.verify(token, key: key, now: now, nonce: nonce)
    }
}

/// A provider the server has no settings for: every token is `.notConfigured` (503).
public struct NotConfiguredVerifier: IdentityVerifier {
    public let provider: IdentityProvider

    public init(provider: IdentityProvider) { self.provider = provider }

    public func verify(token: String, nonce: String?) throws(IdentityVerificationError) -> VerifiedIdentity {
        throw .notConfigured
    }
}
