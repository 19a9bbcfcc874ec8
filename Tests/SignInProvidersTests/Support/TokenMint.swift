import Crypto
import Foundation
import Synchronization
import TestSupport

/// Signs ID tokens as a provider would, with the stand-in's keys.
struct TokenMint {
    let standIn: IdentityStandIn
    var issuer = "https://appleid.apple.com"
    var audience = "com.example.pacenote"

    var now: Int64 { Int64(Date().timeIntervalSince1970) }

    func claims(_ changes: [String: Any] = [:], dropping: [String] = []) -> [String: Any] {
        var claims: [String: Any] = ["iss": issuer, "aud": audience, "sub": "001234.abcdef", "exp": now + 600, "iat": now - 10,
                                     "email": "kalle@privaterelay.appleid.com", "email_verified": "true"]
        for (key, value) in changes { claims[key] = value }
        for key in dropping { claims[key] = nil }
        return claims
    }

    /// A token signed RS256 by the stand-in's key `signer`, its header naming `kid` (the
    /// signer's name unless told).
    func sign(_ claims: [String: Any], signer: String = "k1", kid: String? = nil, header: [String: Any]? = nil) throws -> String {
        let header = header ?? ["alg": "RS256", "kid": kid ?? signer, "typ": "JWT"]
        return try JWT.sign(header: Array(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)),
                            claims: Array(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)),
                            with: try SigningKey(pem: try standIn.privateKeyPEM(signer), algorithm: .rs256))
    }

    /// `claims(changes)` signed by `signer`.
    func token(_ changes: [String: Any] = [:], signer: String = "k1") throws -> String {
        try sign(claims(changes), signer: signer)
    }
}

/// A monotonic clock a test turns by hand (milliseconds).
final class ManualClock: Sendable {
    private let millis = Atomic<Int64>(1_000_000)

    var now: @Sendable () -> Int64 { { [self] in millis.load(ordering: .relaxed) } }

    func advance(seconds: Int64) { millis.add(seconds * 1_000, ordering: .relaxed) }
}

/// How long `body` took, in seconds.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = Date()
    try body()
    return Date().timeIntervalSince(start)
}
