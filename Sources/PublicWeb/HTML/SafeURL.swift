import VideoRegistry

/// A URL that may go in an `href`, a `src` or an Open Graph tag: a path of this site whose
/// segments are percent-encoded, or an absolute `http`/`https` URL that was checked. Nothing
/// else can be made, so no page can link to `javascript:`, `data:` or a scheme-relative
/// `//host` whatever a user typed.
struct SafeURL: Equatable, CustomStringConvertible {
    let text: String

    private init(_ text: String) {
        self.text = text
    }

    var description: String { text }

    /// A path of this site: `/` and each segment percent-encoded (RFC 3986 unreserved
    /// characters kept), then an optional query of percent-encoded pairs.
    static func path(_ segments: [String], query: [(String, String)] = []) -> SafeURL {
        var text = ""
        for segment in segments {
            text += "/" + percentEncoded(segment)
        }
        if text.isEmpty { text = "/" }
        if !query.isEmpty {
            text += "?" + query.map { percentEncoded($0.0) + "=" + percentEncoded($0.1) }.joined(separator: "&")
        }
        return SafeURL(text)
    }

    /// An absolute URL from elsewhere (a profile picture's, built from `--public-url`), if it
    /// is `http` or `https` with a host and holds no space, control character, quote or angle
    /// bracket; nil otherwise.
    static func absolute(_ text: String) -> SafeURL? {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = text.dropFirst(7)
        } else {
            return nil
        }
        guard let first = rest.first, first != "/", first != "?", first != "#" else { return nil }
        for scalar in text.unicodeScalars {
            guard scalar.value > 0x20, scalar.value < 0x7F, !"\"'<>\\`{}|^".unicodeScalars.contains(scalar) else { return nil }
        }
        return SafeURL(text)
    }

    /// A site path made absolute on the public URL (`og:url`, `og:image` of our own files).
    func absolute(on base: PublicURL) -> SafeURL {
        text.hasPrefix("/") ? SafeURL(base.text + text) : self
    }

    /// The player embedded on a video page, from YouTube's privacy-enhanced host.
    static func embed(_ id: YouTubeID) -> SafeURL {
        SafeURL("https://www.youtube-nocookie.com/embed/" + id.value)
    }

    /// The video's thumbnail, as the API's `thumbnailUrl`.
    static func thumbnail(_ id: YouTubeID) -> SafeURL {
        SafeURL(id.thumbnailURL)
    }

    /// The video on YouTube, as the API's `watchUrl`.
    static func watch(_ id: YouTubeID) -> SafeURL {
        SafeURL(id.watchURL)
    }

    /// `text` with every byte outside RFC 3986's unreserved set percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        // Ids and usernames are letters, digits, `_` and `.`: most segments need nothing.
        guard !text.utf8.allSatisfy(isUnreserved) else { return text }
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case _ where isUnreserved(byte):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return out
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
