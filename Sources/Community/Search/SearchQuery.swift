/// API.md Search: all words must match, the last one as a prefix; case- and accent-insensitive (the FTS5 tokenizer is
/// `unicode61 remove_diacritics 2`, so folding happens in the index; the query must only be split and quoted).
///
/// Nothing a user types reaches FTS5 as syntax: every word is a double-quoted string, which FTS5 hands to the
/// tokenizer and never reads as an operator, so `NOT`, `OR`, `NEAR`, `title:` or `^` are plain words or separators.
/// The expressions are meant to be bound as parameters (`… MATCH \(query.prefixMatch)`), never spliced into SQL.
/// On PostgreSQL the `words` are bound instead, joined by spaces (no word holds one), and `pacenote_search_query`
/// (migrations/postgres/0010) folds each like the documents and builds the `tsquery` from them, so nothing typed is
/// read as `tsquery` syntax either.
package struct SearchQuery: Sendable, Equatable {
    /// More words are ignored.
    package static let maxWords = 16
    /// Longer input is cut to this many characters before it is split (the route refuses it first).
    package static let maxInputLength = 200
    /// The last word matches as a prefix only from this many characters on; a shorter last word
    /// matches whole words only (`o` finds the word "O", not every word starting with o). A
    /// one-letter prefix expands to a large share of the vocabulary, and FTS5 (3.40) merges the
    /// doclists of every term a prefix expands to before returning a row, so its cost grew with
    /// the corpus (`o*` read ~30% of the video index: 7-17 ms on the large benchmark). Prefixes
    /// of 2 and 3 characters are read from FTS5 prefix indexes (`prefix = '2 3'`, migration
    /// 0005) as one doclist, lazily, like a whole word; longer ones expand to few terms.
    package static let minimumPrefixLength = 2

    /// The input split into tokens the way unicode61 splits them: runs of letters and digits (Unicode categories
    /// L*, N* and Co); everything else separates (`stephane_kubica` -> `["stephane", "kubica"]`). Case and accents
    /// are kept as typed: the tokenizer folds the query's words exactly as it folded the index.
    ///
    /// A combining mark (M*) continues a word but never starts one, so a decomposed `e` + U+0301 stays in its word:
    /// unicode61 folds the diacritics it knows into the letter before them, and a mark it treats as a separator
    /// instead only turns the quoted word into a phrase of adjacent tokens, which still matches the same text.
    package let words: [String]

    /// nil when the text holds no word at all (empty, only punctuation/space) -> the route answers 400
    /// `validation_failed`, field `q`. Work is bounded: at most `maxInputLength` characters are read.
    package init?(_ text: String) {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.prefix(Self.maxInputLength).unicodeScalars {
            if Self.startsOrContinuesWord(scalar) || (!current.isEmpty && Self.continuesWord(scalar)) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
                if words.count == Self.maxWords { break }
            }
        }
        if !current.isEmpty, words.count < Self.maxWords { words.append(String(current)) }
        guard !words.isEmpty else { return nil }
        self.words = words
    }

    /// True when the last word matches as a prefix (at least `minimumPrefixLength` characters).
    package var lastWordIsPrefix: Bool { (words.last?.count ?? 0) >= Self.minimumPrefixLength }

    /// `"w1" "w2" "w3"*`: every word must match, the last one as a prefix (FTS5's implicit AND)
    /// when it is long enough, otherwise as a whole word.
    package var prefixMatch: String {
        lastWordIsPrefix ? wholeWordMatch + "*" : wholeWordMatch
    }

    /// The same words, all quoted, none as a prefix: matches only whole words (used to rank whole-word matches first).
    package var wholeWordMatch: String {
        words.map(Self.quoted).joined(separator: " ")
    }

    /// Every word whole, all in column `column` (an FTS5 column filter over the group).
    package func wholeWordMatch(inColumn column: String) -> String {
        "{\(column)} : (\(wholeWordMatch))"
    }

    /// An FTS5 string: double-quoted, with `"` doubled. Words hold only letters, digits and marks, so there is no
    /// `"` to escape; the escape stays so that this function is safe whatever it is given.
    private static func quoted(_ word: String) -> String {
        "\"" + word.replacing("\"", with: "\"\"") + "\""
    }

    /// unicode61's default token characters: `categories 'L* N* Co'`.
    private static func startsOrContinuesWord(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            true
        default:
            false
        }
    }

    private static func continuesWord(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
