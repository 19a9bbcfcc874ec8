import Crypto
import JSON

/// A provider's JSON Web Key Set (RFC 7517 §5): `{"keys": [{"kty": "RSA", "kid", "n", "e",
/// "alg": "RS256", "use": "sig"}, ...]}`, read into RSA public keys by `kid`.
///
/// Only what can verify an RS256 signature is kept: `kty` RSA, a `kid`, `use` absent or `sig`,
/// `alg` absent or `RS256`, and `n`/`e` that OpenSSL takes as a key of 2048 bits or more
/// (`VerifyingKey(rsaModulus:exponent:)`). Other keys are skipped, not fatal: a provider may add
/// an EC or encryption key to its set tomorrow. A `kid` seen twice keeps its first key.
public enum JWKSDocument {
    /// The keys of `bytes` by `kid`, at most `maxKeys` of them (the first ones), or nil when the
    /// bytes are not a JWKS or hold no usable key: a set the server cannot use is a failed fetch,
    /// so the keys it already has are kept.
    public static func keys(from bytes: [UInt8], maxKeys: Int) -> [String: VerifyingKey]? {
        guard let document = try? JSONValue.parse(bytes, maxDepth: 8), let entries = document["keys"]?.arrayValue else { return nil }
        var keys: [String: VerifyingKey] = [:]
        for entry in entries where keys.count < maxKeys {
            guard entry["kty"]?.stringValue == "RSA",
                  let kid = entry["kid"]?.stringValue, !kid.isEmpty, kid.utf8.count <= 256, keys[kid] == nil,
                  entry["use"] == nil || entry["use"]?.stringValue == "sig",
                  entry["alg"] == nil || entry["alg"]?.stringValue == "RS256",
                  let n = entry["n"]?.stringValue.flatMap(Base64URL.decode),
                  let e = entry["e"]?.stringValue.flatMap(Base64URL.decode),
                  let key = try? VerifyingKey(rsaModulus: n, exponent: e)
            else { continue }
            keys[kid] = key
        }
        return keys.isEmpty ? nil : keys
    }

    /// How long an answer may be kept, in seconds, from its `Cache-Control` header: `max-age`
    /// clamped to `range`; `no-cache`, `no-store` or `max-age=0` give the range's lower end; no
    /// header or no `max-age` gives `default`. (Google sends about six hours; Apple none.)
    public static func maxAge(cacheControl: String?, default defaultSeconds: Int, range: ClosedRange<Int>) -> Int {
        guard let cacheControl else { return clamp(defaultSeconds, range) }
        var maxAge: Int?
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            switch parts.first {
            case "no-cache", "no-store": return range.lowerBound
            case "max-age" where parts.count == 2:
                let digits = parts[1].trimming("\"")
                if !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) {
                    maxAge = digits.count > 9 ? Int.max : Int(digits)
                }
            default: continue
            }
        }
        return clamp(maxAge ?? defaultSeconds, range)
    }

    private static func clamp(_ value: Int, _ range: ClosedRange<Int>) -> Int { min(max(value, range.lowerBound), range.upperBound) }
}

private extension Substring {
    func trimmingSpaces() -> Substring { trimming(" \t") }

    func trimming(_ set: String) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
