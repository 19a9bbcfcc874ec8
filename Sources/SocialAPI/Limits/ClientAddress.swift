import HTTP

/// The client address the limits count by (API.md "Limits on abuse"): the socket's, or the
/// last hop of `X-Forwarded-For` when the socket's address is a trusted proxy.
///
/// Only the last hop: it is the one the trusted proxy itself appended; everything before it
/// was written by the client and may be anything. An IPv6 address counts by its /64, since
/// one subscriber usually holds a whole /64 and could otherwise use a new address per request.
enum ClientAddress {
    static func resolve(_ request: Request, trustedProxies: Set<String>) -> String {
        var address = request.remoteAddress
        if trustedProxies.contains(address), let forwarded = lastForwardedHop(request) {
            address = forwarded
        }
        return limitKey(address)
    }

    /// The last entry of the last `X-Forwarded-For` field, trimmed; nil when empty.
    static func lastForwardedHop(_ request: Request) -> String? {
        let fields = request.headers.pairs.filter { $0.0.lowercased() == "x-forwarded-for" }
        guard let last = fields.last?.1.split(separator: ",").last else { return nil }
        let hop = last.trimmingASCIISpaces()
        return hop.isEmpty || hop.utf8.count > 64 ? nil : hop
    }

    /// The key a limit counts an address by: IPv4 as is, IPv6 by its first four groups.
    static func limitKey(_ address: String) -> String {
        guard address.contains(":") else { return address }
        // An IPv4-mapped address (::ffff:1.2.3.4) is the IPv4 client.
        if address.lowercased().hasPrefix("::ffff:"), address.contains(".") { return String(address.dropFirst(7)) }
        var text = address
        if text.hasPrefix("[") , let end = text.firstIndex(of: "]") { text = String(text[text.index(after: text.startIndex)..<end]) }
        // Expand "::" so the first four groups are known.
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        }
        var groups = halves[0]
        if halves.count == 2 {
            let missing = max(0, 8 - halves[0].count - halves[1].count)
            groups += Array(repeating: "0", count: missing) + halves[1]
        }
        guard groups.count >= 4 else { return text }
        return groups[0..<4].map { String(Int($0, radix: 16) ?? 0, radix: 16) }.joined(separator: ":") + "::/64"
    }
}

extension Substring {
    fileprivate func trimmingASCIISpaces() -> String {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
