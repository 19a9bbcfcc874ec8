/// Entity tags and `If-None-Match` (RFC 9110 8.8.3 and 13.1.2).
public enum EntityTag {
    /// The strong entity tag of `body`: its XXH64 as 16 lower-case hex digits, quoted
    /// (`"0123456789abcdef"`). The same bytes always give the same tag, on every server.
    public static func strong(of body: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let h = XXH64.hash(body)
        var text: [UInt8] = [UInt8(ascii: "\"")]
        text.reserveCapacity(18)
        for index in 0..<16 { text.append(digits[Int((h >> UInt64(60 - 4 * index)) & 0xF)]) }
        text.append(UInt8(ascii: "\""))
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `If-None-Match` field values (every field of that name, in order) name `etag`
    /// (a quoted tag, strong or `W/`), so a GET or HEAD answers 304.
    ///
    /// `*` matches any current representation; otherwise the values are a comma-separated list
    /// of entity tags compared weakly, as RFC 9110 13.1.2 says for `If-None-Match` (`W/"x"` and
    /// `"x"` match each other). A tag may contain commas (etagc allows them), so the list is read
    /// tag by tag, not split on commas. A malformed value matches nothing: the client gets the
    /// full answer, which is always safe.
    public static func noneMatch(_ values: [String], _ etag: String) -> Bool {
        let ours = opaque(etag)
        for value in values where matches(Array(value.utf8), ours) { return true }
        return false
    }

    /// The tag without `W/`, quotes included.
    static func opaque(_ tag: String) -> ArraySlice<UInt8> {
        let bytes = Array(tag.utf8)
        if bytes.starts(with: [UInt8(ascii: "W"), UInt8(ascii: "/")]) { return bytes[2...] }
        return bytes[...]
    }

    static func matches(_ field: [UInt8], _ ours: ArraySlice<UInt8>) -> Bool {
        let quote = UInt8(ascii: "\"")
        var i = 0
        let n = field.count
        while i < n {
            let byte = field[i]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if byte == UInt8(ascii: "*") { return true }
            var start = i
            if byte == UInt8(ascii: "W"), i + 1 < n, field[i + 1] == UInt8(ascii: "/") { start = i + 2 }
            guard start < n, field[start] == quote else { return false }
            var end = start + 1
            while end < n, field[end] != quote { end += 1 }
            guard end < n else { return false }
            if field[start...end].elementsEqual(ours) { return true }
            i = end + 1
        }
        return false
    }
}
