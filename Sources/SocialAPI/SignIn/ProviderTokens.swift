import Auth
import HTTP
import Telemetry

/// The server's sign-in providers as the routes use them: a token checked with its provider
/// (`IdentityVerifier`, built by `serve` from its flags), with the refusal a client acts on.
///
/// A refused token answers differently by who sends it: signing in, 401
/// `invalid_credentials` (API.md); a signed-in caller confirming an action or linking, 403
/// `invalid_credentials`, like a wrong confirmation password, so the app is not logged out.
/// Why a token was refused goes to the log (the check that failed, never the token).
struct ProviderTokens: Sendable {
    let verifiers: [IdentityProvider: any IdentityVerifier]
    let logger: Logger

    /// Who `token` names, for a sign-in.
    func signIn(_ provider: IdentityProvider, token: String, nonce: String?) throws -> VerifiedIdentity {
        try verify(provider, token: token, nonce: nonce, refused: AuthError.invalidCredentials)
    }

    /// Who `token` names, for a signed-in caller.
    func confirm(_ provider: IdentityProvider, token: String, nonce: String?) throws -> VerifiedIdentity {
        try verify(provider, token: token, nonce: nonce, refused: AuthError.identityNotAccepted)
    }

    /// The confirmation a body gives: `passwordField`, or `provider` and `token` (API.md: "an
    /// account without a password gives provider and token instead"). Nil when it gives neither.
    func confirmation(in body: JSONBody, passwordField: String) throws -> Confirmation? {
        if let password = try body.string(passwordField) { return .password(password) }
        guard body.has("provider") || body.has("token") else { return nil }
        let provider = try Self.provider(named: try body.requireString("provider"), field: "provider")
        return .identity(try confirm(provider, token: try body.requireString("token"), nonce: try body.string("nonce")))
    }

    private func verify(_ provider: IdentityProvider, token: String, nonce: String?, refused: AuthError) throws -> VerifiedIdentity {
        guard let verifier = verifiers[provider] else { throw IdentityVerificationError.notConfigured }
        do {
            return try verifier.verify(token: token, nonce: nonce)
        } catch .invalidToken(let reason) {
            logger.info("provider token refused", ["provider": provider.rawValue, "reason": reason])
            throw refused
        } catch {
            throw error
        }
    }

    /// A provider a token can come from: every one but Twitter, whose identities only arrive
    /// from a Parse export (nothing checks a Twitter token today).
    static func provider(named name: String, field: String?) throws(APIError) -> IdentityProvider {
        guard let provider = IdentityProvider(rawValue: name), provider != .twitter else {
            throw APIError.validation(field, "The provider is one of apple, google, facebook.")
        }
        return provider
    }
}
