import Crypto
import Foundation

/// Signs ID tokens as a provider would, with the stand-in's keys (`IdentityStandIn`).
public struct TokenMint: Sendable {
    public init(standIn: IdentityStandIn, issuer: String = "https://appleid.apple.com", audience: String = "com.example.pacenote") {
        self.standIn = standIn
        self.issuer = issuer
        self.audience = audience
    }

    public let standIn: IdentityStandIn
    public var issuer: String
    public var audience: String

    public var now: Int64 { Int64(Date().timeIntervalSince1970) }

    public func claims(_ changes: [String: Any] = [:], dropping: [String] = []) -> [String: Any] {
        var claims: [String: Any] = ["iss": issuer, "aud": audience, "sub": "001234.abcdef", "exp": now + 600, "iat": now - 10,
                                     "email": "kalle@privaterelay.appleid.com", "email_verified": "true"]
        for (key, value) in changes { claims[key] = value }
        for key in dropping { claims[key] = nil }
        return claims
    }

    /// A token signed RS256 by the stand-in's key `signer`, its header naming `kid` (the
    /// signer's name unless told).
    public func sign(_ claims: [String: Any], signer: String = "k1", kid: String? = nil, header: [String: Any]? = nil) throws -> String {
        let header = header ?? ["alg": "RS256", "kid": kid ?? signer, "typ": "JWT"]
        return try JWT.sign(header: Array(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)),
                            claims: Array(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)),
                            with: try SigningKey(pem: try standIn.privateKeyPEM(signer), algorithm: .rs256))
    }

    /// `claims(changes)` signed by `signer`.
    public func token(_ changes: [String: Any] = [:], signer: String = "k1") throws -> String {
        try sign(claims(changes), signer: signer)
    }
}
