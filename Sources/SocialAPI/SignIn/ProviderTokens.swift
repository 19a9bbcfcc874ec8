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

    /// The confirmation a body gives: `passwordField`, or `proof: {provider, token}`, or (the
    /// older form of the same) `provider` and `token` beside the other fields (API.md: "an
    /// account without a password gives provider and token instead"). Nil when it gives none.
    /// `besideFields`: whether the older form counts (not where `token` is the body's subject,
    /// as in a link).
    func confirmation(in body: JSONBody, passwordField: String, besideFields: Bool = true) throws -> Confirmation? {
        if let password = try body.string(passwordField) { return .password(password) }
        if let proof = try body.object("proof") { return try identity(in: proof, field: "proof") }
        guard besideFields, body.has("provider") || body.has("token") else { return nil }
        return try identity(in: body, field: nil)
    }

    /// `{provider, token, nonce?}` checked with the provider. A missing or mistyped member is
    /// 400 naming it, inside `proof` when the members came in that object (`proof.token`).
    private func identity(in body: JSONBody, field: String?) throws -> Confirmation {
        let prefix = field.map { "\($0)." } ?? ""
        func member(_ key: String) throws(APIError) -> String? {
            do { return try body.string(key) } catch { throw APIError.validation(prefix + key, "\(prefix + key) must be a string.") }
        }
        guard let name = try member("provider") else { throw APIError.validation(prefix + "provider", "\(prefix)provider is required.") }
        guard let token = try member("token") else { throw APIError.validation(prefix + "token", "\(prefix)token is required.") }
        let provider = try Self.provider(named: name, field: prefix + "provider")
        return .identity(try confirm(provider, token: token, nonce: try member("nonce")))
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
