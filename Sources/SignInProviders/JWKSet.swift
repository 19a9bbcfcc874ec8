import Crypto
import JSON

/// A provider's published signing keys (RFC 7517 §5: `{"keys": [{"kty": "RSA", "kid", "n",
/// "e", "alg"?, "use"?}, ...]}`), the RS256 ones by `kid`. Keys of another type, for another
/// use or algorithm, or without a `kid` are left out (a provider may publish more than it
/// signs ID tokens with); a key that does not build (a short modulus) is left out too, so one
/// bad entry cannot take a provider's other keys with it.
public struct JWKSet: Sendable {
    /// Keys a set may hold, at most: providers publish two or three; a document with hundreds
    /// is not a provider's, and each key costs an OpenSSL key in memory.
    public static let maxKeys = 32
    /// Bytes a JWKS document may have (Google's and Apple's are about 1.5 KB).
    public static let maxBytes = 64 * 1024

    public let keys: [String: VerifyingKey]

    public init(keys: [String: VerifyingKey]) {
        self.keys = keys
    }

    /// Nil when the bytes are not a JWKS document at all.
    public static func parse(_ bytes: [UInt8]) -> JWKSet? {
        guard bytes.count <= maxBytes, let document = try? JSONValue.parse(bytes), let entries = document["keys"]?.arrayValue else {
            return nil
        }
        var keys: [String: VerifyingKey] = [:]
        for entry in entries.prefix(maxKeys) {
            guard entry["kty"]?.stringValue == "RSA",
                  entry["use"].map({ $0.stringValue == "sig" }) ?? true,
                  entry["alg"].map({ $0.stringValue == "RS256" }) ?? true,
                  let kid = entry["kid"]?.stringValue, !kid.isEmpty, kid.utf8.count <= 256,
                  let n = entry["n"]?.stringValue.flatMap(Base64URL.decode),
                  let e = entry["e"]?.stringValue.flatMap(Base64URL.decode),
                  let key = try? VerifyingKey(rsaModulus: n, exponent: e) else { continue }
            keys[kid] = key
        }
        return JWKSet(keys: keys)
    }
}
