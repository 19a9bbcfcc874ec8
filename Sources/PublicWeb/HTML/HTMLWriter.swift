/// Writes an HTML document so that nothing a user typed can become markup.
///
/// Markup comes only from this type's own vocabulary: element names are `Tag` cases and
/// attribute names `TextAttribute` / `URLAttribute` cases, all fixed by the program. Every
/// `String` handed in, as text or as an attribute's value, is escaped (`&`, `<`, `>`, `"`, `'`)
/// and stripped of control characters; attribute values are always double-quoted. An `href` or
/// `src` takes a `SafeURL` only, which cannot hold `javascript:` or any scheme but http(s) and
/// our own paths. There is deliberately no method that writes a caller's string unescaped.
///
/// Bidirectional text: `userText` wraps what a user wrote in `<bdi>`, so a right-to-left
/// override (U+202E) in a title reorders that title alone, never the page around it.
struct HTMLWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 8_192) {
        bytes.reserveCapacity(capacity)
    }

    /// `<!DOCTYPE html>` and a newline: the one piece of markup that is not an element.
    mutating func doctype() {
        bytes.append(contentsOf: "<!DOCTYPE html>\n".utf8)
    }

    /// An element with content written by `body`, then its end tag.
    mutating func element(_ tag: Tag, _ attributes: [Attribute] = [], _ body: (inout HTMLWriter) -> Void) {
        start(tag, attributes)
        body(&self)
        bytes.append(UInt8(ascii: "<"))
        bytes.append(UInt8(ascii: "/"))
        append(name: tag.rawValue)
        bytes.append(UInt8(ascii: ">"))
    }

    /// An element whose content is one text, escaped.
    mutating func element(_ tag: Tag, _ attributes: [Attribute] = [], text: String) {
        element(tag, attributes) { $0.text(text) }
    }

    /// A void element (`meta`, `link`, `img`): no content, no end tag.
    mutating func void(_ tag: Tag, _ attributes: [Attribute]) {
        precondition(tag.isVoid, "\(tag) has content; use element(_:_:_:)")
        start(tag, attributes)
    }

    /// Text, escaped.
    mutating func text(_ text: String) {
        Self.escape(text, into: &bytes)
    }

    /// Text a user wrote (a title, a name, a comment), escaped and isolated in `<bdi>`.
    mutating func userText(_ text: String) {
        element(.bdi, text: text)
    }

    /// A newline between elements, so the source stays readable (and diffs of pages too).
    mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func start(_ tag: Tag, _ attributes: [Attribute]) {
        bytes.append(UInt8(ascii: "<"))
        append(name: tag.rawValue)
        for attribute in attributes {
            bytes.append(UInt8(ascii: " "))
            append(name: attribute.name)
            guard let value = attribute.value else { continue }
            bytes.append(UInt8(ascii: "="))
            bytes.append(UInt8(ascii: "\""))
            Self.escape(value, into: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: ">"))
    }

    /// A tag's or an attribute's name: the program's own ASCII, copied as it is (through the
    /// string's contiguous UTF-8: `append(contentsOf: name.utf8)` went byte by byte).
    private mutating func append(name: String) {
        var name = name
        name.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends `text` with the five characters that can end a text or a quoted attribute value
    /// replaced by references, and control characters (C0 but tab, newline and return, DEL,
    /// C1) by U+FFFD: they are parse errors in HTML, and some of them confuse previewers.
    ///
    /// Byte by byte over the UTF-8, copying runs of ordinary bytes at once: every character
    /// replaced is ASCII or, for C1, the two bytes `C2 80`...`C2 9F`, and no other character's
    /// encoding contains those bytes. (A first version made a `String` of every scalar and
    /// cost a day page most of its time.)
    static func escape(_ text: String, into bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            let count = utf8.count
            while index < count {
                let byte = utf8[index]
                let replacement: StaticString?
                var width = 1
                switch byte {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\""): replacement = "&quot;"
                case UInt8(ascii: "'"): replacement = "&#39;"
                case UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): replacement = nil
                case 0..<0x20, 0x7F: replacement = "\u{FFFD}"
                case 0xC2 where index + 1 < count && (0x80...0x9F).contains(utf8[index + 1]):
                    replacement = "\u{FFFD}"
                    width = 2
                default: replacement = nil
                }
                if let replacement {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                    replacement.withUTF8Buffer { bytes.append(contentsOf: $0) }
                    index += width
                    runStart = index
                } else {
                    index += 1
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    /// `escape` as a string (tests, and a page's `<title>` assembled from parts).
    static func escaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        escape(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The elements the pages use; the raw value is the tag name, written as is.
enum Tag: String {
    case html, head, body, title, meta, link
    case header, main, footer, nav, section, article
    case div, h1, h2, p, a, ul, ol, li, span, small, strong, bdi, time
    case img, iframe

    var isVoid: Bool { self == .meta || self == .link || self == .img }
}

/// An attribute: a fixed name and, but for a boolean attribute, a value escaped when written.
/// Made only through `text(_:_:)`, `url(_:_:)` and `flag(_:)`.
struct Attribute {
    let name: String
    let value: String?

    private init(name: String, value: String?) {
        self.name = name
        self.value = value
    }

    /// An attribute whose value is text (never a URL a browser follows).
    static func text(_ name: TextAttribute, _ value: String) -> Attribute {
        Attribute(name: name.rawValue, value: value)
    }

    /// An attribute whose value a browser or a previewer follows: only a checked URL.
    static func url(_ name: URLAttribute, _ value: SafeURL) -> Attribute {
        Attribute(name: name.rawValue, value: value.text)
    }

    /// A boolean attribute (`allowfullscreen`).
    static func flag(_ name: FlagAttribute) -> Attribute {
        Attribute(name: name.rawValue, value: nil)
    }

    static func `class`(_ value: String) -> Attribute { text(.class, value) }
}

/// Attributes that hold text. None of them is followed as a URL or run as script: `on*`
/// handlers, `style`, `href`, `src`, `action`, `formaction`, `srcdoc` are deliberately absent.
enum TextAttribute: String {
    case `class`, id, lang, dir, name, property, rel, alt, title, width, height, datetime, charset
    case allow, referrerpolicy, loading, hreflang, sandbox
    case ariaLabel = "aria-label"
    /// A `<meta>`'s value. Open Graph URLs go through `URLAttribute.content`.
    case content
}

/// Attributes that hold a URL: the value must be a `SafeURL`.
enum URLAttribute: String {
    case href, src
    /// A `<meta>` whose value is a URL (`og:url`, `og:image`, `twitter:player`).
    case content
}

enum FlagAttribute: String {
    case allowfullscreen
}
