/// The preview tags of a page (API.md "Public web"): Open Graph for Facebook, WhatsApp,
/// Telegram, Slack, Discord, iMessage and LinkedIn, Twitter Card for X.
///
/// Lengths: Facebook and X cut a preview's title near 90 characters and its description near
/// 200 (X at 70 and 200 in some layouts), so a title is cut to at most 90 and a description to
/// at most 200, on a character (grapheme) boundary, ending with "…" when cut. Both limits count
/// Unicode scalars, so a title of combining marks is not longer than it looks to a parser that
/// counts code points.
struct OpenGraph: Equatable {
    static let titleLimit = 90
    static let descriptionLimit = 200

    enum Kind: Equatable {
        /// `og:type website`, `twitter:card summary_large_image`.
        case page
        /// `og:type video.other` with `og:video` the embed, `twitter:card player`.
        case video(embed: SafeURL)
    }

    let title: String
    let description: String
    /// Absolute (`SafeURL.absolute(on:)`).
    let url: SafeURL
    let image: SafeURL
    let kind: Kind

    init(title: String, description: String, url: SafeURL, image: SafeURL, kind: Kind) {
        self.title = Self.truncated(title, limit: Self.titleLimit)
        self.description = Self.truncated(Self.oneLine(description), limit: Self.descriptionLimit)
        self.url = url
        self.image = image
        self.kind = kind
    }

    /// Writes the tags into a page's `<head>`.
    func write(to html: inout HTMLWriter, siteName: String, locale: String) {
        func property(_ name: String, _ value: String) {
            html.void(.meta, [.text(.property, name), .text(.content, value)])
            html.newline()
        }
        func property(_ name: String, url: SafeURL) {
            html.void(.meta, [.text(.property, name), .url(.content, url)])
            html.newline()
        }
        func named(_ name: String, _ value: String) {
            html.void(.meta, [.text(.name, name), .text(.content, value)])
            html.newline()
        }
        func named(_ name: String, url: SafeURL) {
            html.void(.meta, [.text(.name, name), .url(.content, url)])
            html.newline()
        }
        property("og:site_name", siteName)
        property("og:locale", locale == "es" ? "es_ES" : "en_US")
        property("og:title", title)
        property("og:description", description)
        property("og:url", url: url)
        property("og:image", url: image)
        switch kind {
        case .page:
            property("og:type", "website")
            named("twitter:card", "summary_large_image")
        case .video(let embed):
            property("og:type", "video.other")
            property("og:image:width", "480")
            property("og:image:height", "360")
            property("og:video", url: embed)
            property("og:video:secure_url", url: embed)
            property("og:video:type", "text/html")
            property("og:video:width", "1280")
            property("og:video:height", "720")
            named("twitter:card", "player")
            named("twitter:player", url: embed)
            named("twitter:player:width", "1280")
            named("twitter:player:height", "720")
        }
        named("twitter:title", title)
        named("twitter:description", description)
        named("twitter:image", url: image)
    }

    /// `text` cut to at most `limit` Unicode scalars on a grapheme boundary, with "…" when cut.
    static func truncated(_ text: String, limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        var kept = ""
        var scalars = 0
        for character in text {
            let size = character.unicodeScalars.count
            guard scalars + size <= limit - 1 else { break }
            kept.append(character)
            scalars += size
        }
        while kept.last?.isWhitespace == true { kept.removeLast() }
        return kept + "…"
    }

    /// Line breaks and runs of spaces as one space: previews show one paragraph.
    static func oneLine(_ text: String) -> String {
        // Most descriptions are one line already: look at the bytes before splitting.
        var previousWasSpace = true
        var clean = true
        for byte in text.utf8 {
            let space = byte == UInt8(ascii: " ")
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") || (space && previousWasSpace) || byte >= 0x80 {
                clean = false
                break
            }
            previousWasSpace = space
        }
        if clean && !previousWasSpace { return text }
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
