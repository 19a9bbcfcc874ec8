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

    /// The trimmed text when it has no NUL and its length is within `length`; otherwise nil.
    public static func checked(_ value: String, length: ClosedRange<Int>) -> String? {
        let text = trimmed(value)
        guard !text.unicodeScalars.contains(where: { $0.value == 0 }), length.contains(text.count) else { return nil }
        return text
    }
}
