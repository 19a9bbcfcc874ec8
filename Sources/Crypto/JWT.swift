/// JSON Web Tokens in compact JWS form (RFC 7519, RFC 7515 §7.1):
/// `base64url(header) "." base64url(claims) "." base64url(signature)`.
///
/// This module knows no JSON: callers pass the header and claims already serialized, so the
/// bytes signed are exactly the bytes sent.
public enum JWT {
    /// Signs `header` and `claims` (JSON bytes) with `key`. The header's `alg` must name
    /// `key.algorithm`; the caller writes it.
    public static func sign(header: [UInt8], claims: [UInt8], with key: SigningKey) throws(SigningError) -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.sign(signingInput.utf8)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The decoded header and claims of `token` when its signature verifies under `key`, else nil.
    /// Checks the signature only: the caller reads and judges `alg`, times and audience.
    public static func verify(_ token: String, with key: VerifyingKey) -> (header: [UInt8], claims: [UInt8])? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let header = Base64URL.decode(String(parts[0])),
              let claims = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2]))
        else { return nil }
        let signingInput = parts[0] + "." + parts[1]
        guard key.isValidSignature(signature, for: Array(signingInput.utf8)) else { return nil }
        return (header, claims)
    }
}
