import Auth
import Crypto
import JSON

/// What an OpenID Connect ID token (Apple's `identityToken`, Google's `idToken`) must be to
/// sign someone in: a compact JWS signed RS256 by a key of the provider's JWKS, from one of its
/// issuers, for one of this server's app ids, not expired. A pure check: the keys, the time and
/// the settings are given, so every hostile token is a unit test.
public struct IDTokenCheck: Sendable {
    public let provider: IdentityProvider
    /// `iss` values the provider signs with (Google uses two spellings).
    public let issuers: Set<String>
    /// This server's app ids at the provider (`--apple-audience`, `--google-audience`).
    public let audiences: Set<String>
    /// Clock skew allowed on `exp` and `iat`, in seconds.
    public var leewaySeconds: Int64 = 60
    /// Longer tokens are refused unread (provider tokens are 1 to 2 KB).
    public static let maxTokenBytes = 8 * 1024

    public init(provider: IdentityProvider, issuers: Set<String>, audiences: Set<String>) {
        self.provider = provider
        self.issuers = issuers
        self.audiences = audiences
    }

    /// The token's header, read without checking anything: the caller needs its `kid` to find
    /// the key (and a `kid` not in the cached set makes it fetch the JWKS again).
    public static func keyID(of token: String) -> String? {
        header(of: token)?.keyID
    }

    /// The header's `alg` and `kid`, read without checking anything, or nil when the token is
    /// too long or its first part is not base64url of a JSON object (duplicate names refused,
    /// as `verify` refuses them). `OIDCVerifier` asks for a key only for an RS256 header.
    public static func header(of token: String) -> (algorithm: String?, keyID: String?)? {
        guard token.utf8.count <= maxTokenBytes, let first = token.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first,
              let bytes = Base64URL.decode(String(first)), let header = try? JSONValue.parse(bytes, duplicateKeys: .refuse),
              header.objectValue != nil else { return nil }
        return (header["alg"]?.stringValue, header["kid"]?.stringValue)
    }

    /// Who the token names, or why it names no one. `key` is the JWKS key with the header's
    /// `kid` (nil: none has it); `now` in seconds since 1970; `nonce` the one the app sent, if any.
    public func verify(_ token: String, key: VerifyingKey?, now: Int64, nonce: String?) throws(IdentityVerificationError) -> VerifiedIdentity {
        guard token.utf8.count <= Self.maxTokenBytes else { throw .invalidToken(reason: "token too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
              let header = try? JSONValue.parse(headerBytes, duplicateKeys: .refuse) else {
            throw .invalidToken(reason: "not a compact JWS")
        }
        // Exactly RS256: `none` would need no signature, and HS256 would take the public key,
        // which anyone has, as the HMAC secret. Neither is ever tried.
        guard header["alg"]?.stringValue == "RS256" else { throw .invalidToken(reason: "alg is not RS256") }
        // RFC 7515 4.1.11: a `crit` header names extensions the recipient must understand, and
        // this check understands none (providers never send one).
        guard header["crit"] == nil else { throw .invalidToken(reason: "crit header") }
        guard let key, key.algorithm == .rs256 else { throw .invalidToken(reason: "kid not in the provider's keys") }
        guard let (_, claimBytes) = JWT.verify(token, with: key),
              let claims = try? JSONValue.parse(claimBytes, duplicateKeys: .refuse), claims.objectValue != nil else {
            throw .invalidToken(reason: "signature")
        }
        guard let issuer = claims["iss"]?.stringValue, issuers.contains(issuer) else { throw .invalidToken(reason: "issuer") }
        let audience: [String] = claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard audience.contains(where: audiences.contains) else { throw .invalidToken(reason: "audience") }
        guard let expiry = claims["exp"].flatMap(Self.seconds), now <= expiry + leewaySeconds else { throw .invalidToken(reason: "expired") }
        if let issuedAt = claims["iat"].flatMap(Self.seconds), issuedAt > now + leewaySeconds {
            throw .invalidToken(reason: "issued in the future")
        }
        if let notBefore = claims["nbf"].flatMap(Self.seconds), notBefore > now + leewaySeconds {
            throw .invalidToken(reason: "not yet valid")
        }
        let claimedNonce = claims["nonce"]?.stringValue
        if let nonce {
            // The app sends the raw nonce; the token carries its SHA-256 in hex (Apple's and
            // Firebase's convention). Never the value as sent: the claim itself is in the token,
            // so whoever holds a stolen token could send it.
            guard let claimedNonce, constantTimeEquals(claimedNonce.utf8, Hex.encode(SHA256.hash(nonce)).utf8) else {
                throw .invalidToken(reason: "nonce")
            }
        }
        guard claimedNonce.map({ !$0.isEmpty && $0.utf8.count <= 255 }) ?? true else { throw .invalidToken(reason: "nonce") }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw .invalidToken(reason: "no subject")
        }
        let email = claims["email"]?.stringValue
        // Apple writes `email_verified` as a string ("true") in some tokens, Google as a bool.
        let verified = claims["email_verified"]?.boolValue ?? (claims["email_verified"]?.stringValue == "true")
        // A token with a nonce signs in once (`Accounts` uses it up), whether or not the app
        // sent the nonce: until its expiry, so the ledger keeps it that long.
        let oneTime = claimedNonce.map { OneTimeNonce(claim: $0, expiresAtMillis: (expiry + leewaySeconds) * 1_000) }
        return VerifiedIdentity(provider: provider, subject: subject, email: email, emailVerified: email != nil && verified,
                                name: claims["name"]?.stringValue, nonce: oneTime)
    }

    private static func seconds(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let seconds): seconds
        case .double(let seconds) where seconds.isFinite && abs(seconds) < 1e15: Int64(seconds)
        default: nil
        }
    }
}
