import Auth
import Telemetry

/// The sign-in provider flags of `serve` (API.md "Command line"), and the verifiers they make.
///
/// A provider is on when its settings are given: Apple with `--apple-audience`, Google with
/// `--google-audience`, Facebook with both `--facebook-app-id` and `--facebook-app-secret`
/// (one without the other is refused at start). The others, and Twitter always, get a
/// `NotConfiguredVerifier` (503 `unavailable`).
public struct SignInProviderSettings: Sendable, CustomStringConvertible {
    /// `--apple-audience ID,...`: the app's bundle ids (and Services IDs).
    public var appleAudiences: [String] = []
    /// `--apple-jwks-url`.
    public var appleJWKSURL = OIDCVerifier.Configuration.appleJWKSURL
    /// `--google-audience ID,...`: the apps' OAuth client ids.
    public var googleAudiences: [String] = []
    /// `--google-jwks-url`.
    public var googleJWKSURL = OIDCVerifier.Configuration.googleJWKSURL
    /// `--facebook-app-id`, `--facebook-app-secret`, `--facebook-graph-url`.
    public var facebookAppID: String?
    public var facebookAppSecret: String?
    public var facebookGraphURL = FacebookVerifier.Configuration.defaultGraphURL
    /// `--provider-ca-file`: PEM CAs trusted besides the system's.
    public var caFile: String?
    /// The longest a sign-in waits for a provider, in milliseconds (API.md names no flag for it
    /// yet; 3 s unless `serve` is given one).
    public var timeoutMillis = 3_000

    public init() {}

    /// Which providers the settings turn on, for `serve` to say at start.
    public var configuredProviders: [IdentityProvider] {
        var providers: [IdentityProvider] = []
        if !appleAudiences.isEmpty { providers.append(.apple) }
        if !googleAudiences.isEmpty { providers.append(.google) }
        if facebookAppID != nil || facebookAppSecret != nil { providers.append(.facebook) }
        return providers
    }

    /// Without the Facebook secret.
    public var description: String {
        "SignInProviderSettings(apple: \(appleAudiences), google: \(googleAudiences), facebook: \(facebookAppID ?? "-"), "
            + "facebookAppSecret: \(facebookAppSecret == nil ? "-" : "redacted"), caFile: \(caFile ?? "-"), timeoutMillis: \(timeoutMillis))"
    }

    /// One verifier for every `IdentityProvider`, sharing one HTTP client.
    /// - Throws: `ProviderConfigurationError` for a bad URL, CA file or timeout, or a Facebook
    ///   id without its secret (or the other way round).
    public func makeVerifiers(logger: Logger? = nil, metrics: MetricsRegistry? = nil) throws(ProviderConfigurationError) -> [IdentityProvider: any IdentityVerifier] {
        var verifiers: [IdentityProvider: any IdentityVerifier] = [:]
        for provider in IdentityProvider.allCases { verifiers[provider] = NotConfiguredVerifier(provider: provider) }
        let configured = configuredProviders
        guard !configured.isEmpty else { return verifiers }
        let client = try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: timeoutMillis, extraCAFile: caFile))
        if configured.contains(.apple) {
            verifiers[.apple] = try OIDCVerifier(.apple(audiences: Set(appleAudiences), jwksURL: appleJWKSURL), client: client, logger: logger, metrics: metrics)
        }
        if configured.contains(.google) {
            verifiers[.google] = try OIDCVerifier(.google(audiences: Set(googleAudiences), jwksURL: googleJWKSURL), client: client, logger: logger, metrics: metrics)
        }
        if configured.contains(.facebook) {
            guard let facebookAppID else { throw .incomplete(provider: "facebook", missing: "--facebook-app-id") }
            guard let facebookAppSecret else { throw .incomplete(provider: "facebook", missing: "--facebook-app-secret") }
            verifiers[.facebook] = try FacebookVerifier(FacebookVerifier.Configuration(appID: facebookAppID, appSecret: facebookAppSecret, graphURL: facebookGraphURL),
                                                        client: client, logger: logger, metrics: metrics)
        }
        return verifiers
    }
}
