import Crypto

/// The `X-Pacenote-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
///
/// The timestamp is inside the MAC so a relay can refuse replays of old deliveries; the body is
/// MACed as sent, byte for byte. A relay verifies with `isValid`, or the same few lines in its
/// own language.
public enum WebhookSignature {
    public static let headerName = "X-Pacenote-Signature"

    /// The header value for `body` sent at `timestamp` (seconds since 1970).
    public static func header(body: [UInt8], key: HMACKey, timestamp: Int64) -> String {
        "t=\(timestamp),v1=" + Hex.encode(key.authenticationCode(for: signedBytes(body: body, timestamp: timestamp)))
    }

    /// Whether `header` signs `body` under `key` with a timestamp within `toleranceSeconds` of
    /// `nowSeconds`. The MAC is compared in constant time.
    public static func isValid(header: String, body: [UInt8], key: HMACKey, nowSeconds: Int64, toleranceSeconds: Int64 = 300) -> Bool {
        var timestamp: Int64?
        var code: [UInt8]?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { timestamp = Int64(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { code = Hex.decode(String(part.dropFirst(3))) }
        }
        guard let timestamp, let code, abs(nowSeconds - timestamp) <= toleranceSeconds else { return false }
        return key.isValid(code, for: signedBytes(body: body, timestamp: timestamp))
    }

    private static func signedBytes(body: [UInt8], timestamp: Int64) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }
}
