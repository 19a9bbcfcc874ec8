import Auth
import Foundation
import SignInProviders
import SocialAPI
import Telemetry

/// The sign-in provider flags of API.md "Command line" (Sign-in providers): each provider is
/// on when its settings are given; `SignInProviderSettings` makes the verifiers.
enum SignInOptions {
    static let flags: [CommandSpec.Flag] = [
        .init("apple-audience", "ID,...", "Sign in with Apple: the app's bundle ids (and Services IDs) a token may be for (off without it)"),
        .init("apple-jwks-url", "URL", "Apple's signing keys (https://appleid.apple.com/auth/keys)"),
        .init("google-audience", "ID,...", "Google Sign-In: the OAuth client ids of the apps (off without it)"),
        .init("google-jwks-url", "URL", "Google's signing keys (https://www.googleapis.com/oauth2/v3/certs)"),
        .init("facebook-app-id", "ID", "Facebook Login: the app's id, with --facebook-app-secret (off without them)"),
        .init("facebook-app-secret", "SECRET", "the Facebook app's secret (prefer PACENOTE_FACEBOOK_APP_SECRET)"),
        .init("facebook-graph-url", "URL", "Facebook's Graph API (https://graph.facebook.com)"),
        .init("provider-ca-file", "FILE", "PEM certificates trusted for the providers besides the system's"),
    ]

    static func settings(_ options: Options) throws -> SignInProviderSettings {
        var settings = SignInProviderSettings()
        settings.appleAudiences = list(options.string("apple-audience"))
        settings.googleAudiences = list(options.string("google-audience"))
        if let url = options.string("apple-jwks-url") { settings.appleJWKSURL = url }
        if let url = options.string("google-jwks-url") { settings.googleJWKSURL = url }
        settings.facebookAppID = options.string("facebook-app-id")
        settings.facebookAppSecret = options.string("facebook-app-secret")
        if let url = options.string("facebook-graph-url") { settings.facebookGraphURL = url }
        settings.caFile = options.string("provider-ca-file")
        return settings
    }

    /// One verifier per provider; a bad setting stops `serve` with its reason.
    static func verifiers(_ settings: SignInProviderSettings, logger: Logger, metrics: MetricsRegistry) throws -> [IdentityProvider: any IdentityVerifier] {
        do {
            return try settings.makeVerifiers(logger: logger, metrics: metrics)
        } catch {
            throw Options.UsageError(description: error.description)
        }
    }

    private static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
