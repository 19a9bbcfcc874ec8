/// A validated YouTube video id: exactly 11 characters of [A-Za-z0-9_-].
///
/// The only way to get one is `init?(parsing:)`, so a value always holds a bare id, never
/// a URL; the database stores `value` and the API derives `thumbnailURL` and `watchURL`.
public struct YouTubeID: Sendable, Hashable, CustomStringConvertible {
    /// The bare 11-character id.
    public let value: String

    /// Accepts a bare id or any common URL form and answers the bare id; nil for anything else.
    ///
    /// Surrounding whitespace is ignored. URLs: `http`, `https` or no scheme; hosts
    /// `youtube.com`, `www.`, `m.`, `music.youtube.com`, `youtube-nocookie.com`,
    /// `www.youtube-nocookie.com`, `youtu.be` (case-insensitive); paths `/watch?v=ID`,
    /// `/shorts/ID`, `/embed/ID`, `/v/ID`, `/live/ID`, `youtu.be/ID`, a trailing slash after the id
    /// allowed; other query parameters and a fragment ignored. No percent-decoding: an id is
    /// taken exactly as written. Inputs over 2,048 characters are refused without being read.
    public init?(parsing input: String) {
        guard let id = Self.parse(input) else { return nil }
        value = id
    }

    public var description: String { value }

    /// `https://i.ytimg.com/vi/<id>/hqdefault.jpg` (API.md, Video).
    public var thumbnailURL: String { "\(Self.thumbnailURLParts.prefix)\(value)\(Self.thumbnailURLParts.suffix)" }

    /// `https://www.youtube.com/watch?v=<id>` (API.md, Video).
    public var watchURL: String { "\(Self.watchURLParts.prefix)\(value)\(Self.watchURLParts.suffix)" }

    /// The text around the id in `thumbnailURL` and `watchURL`, for a writer that puts the
    /// URL together where it goes instead of making a string of it.
    public static let thumbnailURLParts: (prefix: StaticString, suffix: StaticString) = ("https://i.ytimg.com/vi/", "/hqdefault.jpg")
    public static let watchURLParts: (prefix: StaticString, suffix: StaticString) = ("https://www.youtube.com/watch?v=", "")
}

extension YouTubeID {
    static let maxInputLength = 2_048
    static let idLength = 11

    /// Compared after ASCII lower-casing; anything else in the authority (a port, userinfo
    /// with `@`, a trailing dot, another domain) makes the host unknown.
    private static let hosts: Set<String> = [
        "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com",
        "youtube-nocookie.com", "www.youtube-nocookie.com",
    ]
    private static let shortHost = "youtu.be"
    /// `/<prefix>/<id>` paths on the long hosts.
    private static let idPathPrefixes: Set<String> = ["shorts", "embed", "v", "live"]

    private typealias Bytes = ArraySlice<UInt8>

    private static func parse(_ input: String) -> String? {
        // A bare id, as every stored one is: taken as it is (trimming looks up Unicode
        // properties per character, which showed up in profiles of video lists).
        if input.utf8.count == idLength, input.utf8.allSatisfy(isIDByte) { return input }
        // A character is 1 to 4 UTF-8 bytes: up to max bytes is surely short enough, over 4 × max surely
        // too long, and only in between are characters counted (a bounded walk).
        let byteCount = input.utf8.count
        guard byteCount <= maxInputLength || (byteCount <= 4 * maxInputLength && input.count <= maxInputLength) else {
            return nil
        }
        var text = trimmed(input)[...]
        if isID(text) { return string(text) }

        if let afterScheme = droppingPrefix("https://", of: text) ?? droppingPrefix("http://", of: text) {
            text = afterScheme
        }
        // The authority ends at the path, the query or the fragment.
        let authorityEnd = text.firstIndex { $0 == ascii("/") || $0 == ascii("?") || $0 == ascii("#") } ?? text.endIndex
        let host = String(decoding: text[..<authorityEnd].map(asciiLowercased), as: UTF8.self)
        guard host == shortHost || hosts.contains(host) else { return nil }
        text = text[authorityEnd...]

        if let fragment = text.firstIndex(of: ascii("#")) { text = text[..<fragment] }
        let queryStart = text.firstIndex(of: ascii("?"))
        var path = text[..<(queryStart ?? text.endIndex)]
        let query = queryStart.map { text[text.index(after: $0)...] } ?? []

        guard path.first == ascii("/") else { return nil }
        path = path.dropFirst()
        if path.count > 1, path.last == ascii("/") { path = path.dropLast() }
        let segments = path.split(separator: ascii("/"), omittingEmptySubsequences: false)

        let candidate: Bytes?
        if host == shortHost {
            candidate = segments.count == 1 ? segments[0] : nil
        } else if segments.count == 1, string(segments[0]) == "watch" {
            candidate = videoParameter(in: query)
        } else if segments.count == 2, idPathPrefixes.contains(string(segments[0])) {
            candidate = segments[1]
        } else {
            candidate = nil
        }
        guard let candidate, isID(candidate) else { return nil }
        return string(candidate)
    }

    /// The value of `v` among `&`-separated parameters, wherever it is; nil when it is absent
    /// or given twice with different values (ambiguous).
    private static func videoParameter(in query: Bytes) -> Bytes? {
        var found: Bytes?
        for parameter in query.split(separator: ascii("&")) {
            // Parameter names are case-sensitive: `V=` is not `v=`.
            guard parameter.starts(with: "v=".utf8) else { continue }
            let value = parameter.dropFirst(2)
            if let found, found != value { return nil }
            found = value
        }
        return found
    }

    private static func isID(_ bytes: Bytes) -> Bool {
        bytes.count == idLength && bytes.allSatisfy(isIDByte)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        (byte >= ascii("0") && byte <= ascii("9")) || (byte >= ascii("A") && byte <= ascii("Z"))
            || (byte >= ascii("a") && byte <= ascii("z")) || byte == ascii("_") || byte == ascii("-")
    }

    /// The input's UTF-8 without surrounding Unicode whitespace (pasted links bring newlines and NBSPs).
    private static func trimmed(_ input: String) -> [UInt8] {
        let scalars = input.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return [] }
        return Array(String(scalars[start...end]).utf8)
    }

    /// `bytes` without `prefix` (ASCII, matched case-insensitively), or nil when it does not start with it.
    private static func droppingPrefix(_ prefix: String, of bytes: Bytes) -> Bytes? {
        let prefixBytes = Array(prefix.utf8)
        guard bytes.count >= prefixBytes.count,
              zip(bytes, prefixBytes).allSatisfy({ asciiLowercased($0) == asciiLowercased($1) }) else { return nil }
        return bytes.dropFirst(prefixBytes.count)
    }

    private static func string(_ bytes: Bytes) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(character.value) }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= ascii("A") && byte <= ascii("Z") ? byte + 32 : byte
    }
}
