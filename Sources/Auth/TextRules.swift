/// The text rules of API.md shared by every module that takes text from clients:
/// lengths count Unicode characters, text is stored trimmed, any valid UTF-8 is kept
/// exactly, NUL is refused.
public enum TextRules {
    /// Whitespace (Unicode's, not just ASCII) removed from both ends; nothing else changes.
    public static func trimmed(_ value: String) -> String {
        let scalars = value.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}

/// One text limit of API.md (a title, a display name, a comment, a search `q`, ...), the one
/// type every module checks client text with.
///
/// Lengths count Unicode characters (grapheme clusters), as a person counts them. A grapheme
/// cluster can hold any number of scalars (`a` followed by 30,000 U+0301 is one character), so
/// a character count alone bounds nothing: a "100-character" display name could be 60 KB and a
/// page of 31 such comments was 9.3 MB. Two more bounds make the size follow the count:
/// - the whole text holds at most `scalarsPerCharacter` (4) scalars per allowed character
///   (API.md), so a 500-character comment is at most 2,000 scalars, 8 KB of UTF-8;
/// - one character holds at most `scalarsPerGrapheme` (10) scalars. 10 is the longest emoji
///   of Unicode's recommended set (a kiss or a couple with two skin tones, U+1F469 U+1F3FD
///   ZWJ U+2764 U+FE0F ZWJ U+1F48B ZWJ U+1F469 U+1F3FD: 10 scalars; a family is 7, a
///   subdivision flag 7; counted over the `emoji` package's list), so 8 would refuse 190 real
///   emoji. Real scripts stack fewer on one letter (Vietnamese 3, Indic conjuncts up to about
///   6). Past 10 it is combining marks piled up ("Zalgo" text), which overflows every line a
///   client draws it on.
public struct TextRule: Sendable, Equatable {
    /// API.md: "a text may hold at most 4 Unicode scalars per allowed character".
    public static let scalarsPerCharacter = 4
    /// The most scalars one character (grapheme cluster) may hold; see the type's comment.
    public static let scalarsPerGrapheme = 10

    /// What the text is, for messages: "A title", "A comment".
    public let subject: String
    /// Allowed lengths in characters, after trimming.
    public let characters: ClosedRange<Int>

    public init(_ subject: String, characters: ClosedRange<Int>) {
        precondition(characters.lowerBound >= 0, "a length is never negative")
        self.subject = subject
        self.characters = characters
    }

    /// The most scalars a text under this rule may hold.
    public var maxScalars: Int { characters.upperBound * Self.scalarsPerCharacter }

    /// Why a text was refused; `message(_:)` is the sentence for the error envelope.
    public enum Violation: Error, Equatable, Sendable {
        /// A NUL scalar anywhere.
        case nul
        /// Too few or too many characters after trimming.
        case length
        /// More than `maxScalars` scalars (which a text of too many plain characters also is).
        case scalars
        /// One character of more than `scalarsPerGrapheme` scalars.
        case stackedMarks
    }

    /// The trimmed text when it satisfies the rule, otherwise why not. Work is bounded by the
    /// rule, not the input: past `maxScalars` scalars the text is refused without being read
    /// further, and graphemes are only broken on a text already known to be short.
    public func check(_ value: String) -> Result<String, Violation> {
        let text = TextRules.trimmed(value)
        var scalarCount = 0
        for scalar in text.unicodeScalars {
            if scalar.value == 0 { return .failure(.nul) }
            scalarCount += 1
            if scalarCount > maxScalars { return .failure(.scalars) }
        }
        var graphemes = 0
        for character in text {
            graphemes += 1
            if character.unicodeScalars.count > Self.scalarsPerGrapheme { return .failure(.stackedMarks) }
        }
        guard characters.contains(graphemes) else { return .failure(.length) }
        return .success(text)
    }

    /// The trimmed text, or `makeError(message)` thrown with the envelope's sentence.
    public func validated<E: Error>(_ value: String, orThrow makeError: (String) -> E) throws(E) -> String {
        switch check(value) {
        case .success(let text): return text
        case .failure(let violation): throw makeError(message(violation))
        }
    }

    /// The sentence a client reads for `violation`.
    public func message(_ violation: Violation) -> String {
        switch violation {
        case .nul:
            return "\(subject) cannot contain a NUL character."
        case .length:
            return "\(subject) is \(lengthPhrase)."
        case .scalars:
            return "\(subject) is \(lengthPhrase), and holds at most \(Self.grouped(maxScalars)) Unicode scalars (\(Self.scalarsPerCharacter) per character)."
        case .stackedMarks:
            return "\(subject) cannot hold a character made of more than \(Self.scalarsPerGrapheme) Unicode scalars (stacked combining marks)."
        }
    }

    private var lengthPhrase: String {
        characters.lowerBound == 0
            ? "at most \(Self.grouped(characters.upperBound)) characters"
            : "\(Self.grouped(characters.lowerBound)) to \(Self.grouped(characters.upperBound)) characters"
    }

    /// 2000 -> "2,000", as the messages have always written it.
    private static func grouped(_ number: Int) -> String {
        let digits = String(number)
        guard digits.count > 3 else { return digits }
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
