/// The URLs the server fetches from sign-in providers: `https://` always, `http://` only to a
/// loopback host (the tests' stand-ins), so a typo in a flag cannot send keys' requests, or
/// Facebook's app secret, in the clear across a network.
public enum ProviderURL {
    /// Whether `url` may be fetched: `https://HOST...`, or `http://` to 127.0.0.0/8, `[::1]` or
    /// `localhost`; no user info (`user@`), no whitespace or control characters, no fragment.
    public static func isAllowed(_ url: String) -> Bool {
        scheme(of: url) != nil
    }

    /// `"https"` or `"http"` for an allowed URL (the only protocol libcurl is then let speak).
    static func scheme(of url: String) -> String? {
        guard url.utf8.count <= 8_192, !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "#" })
        else { return nil }
        let lower = url.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = lower.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
        } else {
            host = authority.prefix { $0 != ":" }
        }
        guard !host.isEmpty else { return nil }
        if scheme == "http" && !isLoopback(host) { return nil }
        return scheme
    }

    /// An operator's base URL (a flag), checked, without its trailing slashes, so paths can be
    /// appended. `setting` names the flag in the error.
    static func base(_ url: String, setting: String) throws(ProviderConfigurationError) -> String {
        guard scheme(of: url) != nil, !url.contains("?") else { throw .invalidURL(setting: setting, url: url) }
        var result = url
        while result.hasSuffix("/") { result.removeLast() }
        guard scheme(of: result) != nil else { throw .invalidURL(setting: setting, url: url) }
        return result
    }

    private static func isLoopback(_ host: Substring) -> Bool {
        if host == "localhost" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in octet.count <= 3 && !octet.isEmpty && octet.allSatisfy { $0 >= "0" && $0 <= "9" } && UInt8(octet) != nil }
    }

    /// `value` percent-encoded for a query string: everything but RFC 3986's unreserved
    /// characters, so a token cannot add a parameter (`&`) or end the URL.
    static func queryEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}
