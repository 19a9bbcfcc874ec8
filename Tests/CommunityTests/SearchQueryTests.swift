import Foundation
import Storage
import TestSupport
import XCTest
@testable import Community

final class SearchQueryTests: XCTestCase {
    private func words(_ text: String) -> [String]? { SearchQuery(text)?.words }

    func testSplitsLikeUnicode61() {
        XCTAssertEqual(words("Rallye Monte-Carlo"), ["Rallye", "Monte", "Carlo"])
        XCTAssertEqual(words("stephane_kubica"), ["stephane", "kubica"])
        XCTAssertEqual(words("s.loeb"), ["s", "loeb"])
        XCTAssertEqual(words("l'équipe d’Ogier"), ["l", "équipe", "d", "Ogier"])
        XCTAssertEqual(words("  WRC\t2024\n"), ["WRC", "2024"])
        XCTAssertEqual(words("🏁finish🏁line 🚗"), ["finish", "line"])
        XCTAssertEqual(words("東京タワー 랠리"), ["東京タワー", "랠리"])
        XCTAssertEqual(words("x²"), ["x²"])
        XCTAssertEqual(words("a\u{E000}b"), ["a\u{E000}b"])  // private use (Co) is a word character
    }

    func testAccentsAndCaseAreKeptAsTyped() {
        XCTAssertEqual(words("Montée ÉCOLE"), ["Montée", "ÉCOLE"])
        // Decomposed: the combining acute stays in its word, as unicode61 keeps it in its token.
        XCTAssertEqual(words("Monte\u{301}e"), ["Monte\u{301}e"])
        XCTAssertNil(SearchQuery("\u{301}"), "a mark alone is not a word")
        XCTAssertEqual(words("\u{301}abc"), ["abc"])
    }

    func testQuoting() throws {
        let query = try XCTUnwrap(SearchQuery("rallye monte carlo"))
        XCTAssertEqual(query.prefixMatch, #""rallye" "monte" "carlo"*"#)
        XCTAssertEqual(query.wholeWordMatch, #""rallye" "monte" "carlo""#)
        let single = try XCTUnwrap(SearchQuery("port"))
        XCTAssertEqual(single.prefixMatch, #""port"*"#)
        XCTAssertEqual(single.wholeWordMatch, #""port""#)
    }

    func testFTS5SyntaxIsOnlyWordsAndSeparators() {
        XCTAssertEqual(SearchQuery("rallye NOT")?.prefixMatch, #""rallye" "NOT"*"#)
        XCTAssertEqual(SearchQuery("a OR b AND cd")?.prefixMatch, #""a" "OR" "b" "AND" "cd"*"#)
        XCTAssertEqual(SearchQuery("NEAR(a b, 2)")?.words, ["NEAR", "a", "b", "2"])
        XCTAssertEqual(SearchQuery("title:xy")?.prefixMatch, #""title" "xy"*"#)
        XCTAssertEqual(SearchQuery("^start")?.prefixMatch, #""start"*"#)
        XCTAssertEqual(SearchQuery(#"say "hello" *"#)?.prefixMatch, #""say" "hello"*"#)
        XCTAssertEqual(SearchQuery(#"{title description}: x"#)?.words, ["title", "description", "x"])
        XCTAssertEqual(SearchQuery("x'); DROP TABLE videos; --")?.words, ["x", "DROP", "TABLE", "videos"])
        XCTAssertEqual(SearchQuery("a\u{0}b")?.words, ["a", "b"])
    }

    func testALastWordShorterThanTwoCharactersIsAWholeWord() throws {
        XCTAssertEqual(SearchQuery("o")?.prefixMatch, #""o""#)
        XCTAssertEqual(SearchQuery("ogier t")?.prefixMatch, #""ogier" "t""#)
        XCTAssertEqual(SearchQuery("og")?.prefixMatch, #""og"*"#)
        XCTAssertEqual(SearchQuery("é")?.prefixMatch, #""é""#)
        // Characters, not scalars: a decomposed é is one character.
        XCTAssertEqual(SearchQuery("e\u{301}")?.lastWordIsPrefix, false)
        XCTAssertEqual(SearchQuery("東京")?.lastWordIsPrefix, true)
        XCTAssertEqual(try XCTUnwrap(SearchQuery("col de")).wholeWordMatch(inColumn: "title"), #"{title} : ("col" "de")"#)
    }

    func testNoWordIsNil() {
        for text in ["", " ", "\n\t", "\"", "*", "(", ")", "\"\"", "-+*^:()", "___", "🏁🏁", "…", "\u{0}"] {
            XCTAssertNil(SearchQuery(text), text.debugDescription)
        }
    }

    func testAtMostSixteenWords() throws {
        let text = (1...40).map { "w\($0)" }.joined(separator: " ")
        let query = try XCTUnwrap(SearchQuery(text))
        XCTAssertEqual(query.words, (1...16).map { "w\($0)" })
        XCTAssertTrue(query.prefixMatch.hasSuffix(#""w16"*"#))
        XCTAssertEqual(SearchQuery((1...16).map { "w\($0)" }.joined(separator: " "))?.words.count, 16)
    }

    func testInputIsCutAtTwoHundredCharacters() {
        let long = String(repeating: "a", count: 199) + "bc d"
        XCTAssertEqual(words(long), [String(repeating: "a", count: 199) + "b"])
        XCTAssertEqual(words(String(repeating: "é", count: 300))?.first?.count, 200)
        XCTAssertEqual(words(String(repeating: " ", count: 200) + "late"), nil)
        // A huge input costs no more than its first 200 characters.
        XCTAssertEqual(words(String(repeating: "x ", count: 1_000_000))?.count, 16)
    }

    // MARK: - Against a real index: FTS5, or PostgreSQL's tsvector documents

    /// The same expectations on the index of the dialect `TestDatabase` chooses: FTS5 with the
    /// schema's tokenizer, or documents made by `pacenote_search_document` and queried through
    /// `pacenote_search_query` (migrations/postgres 0002 and 0010), as `SearchStore` does.
    func testExpressionsMatchAnAccentFoldingIndex() throws {
        let temp = try TemporaryDatabase(migrated: true)
        let database = temp.database
        let titlesOfTheTest = ["Montée de Vence", "Rallye Monte-Carlo", "Portugal", "stephane_kubica", "alice.smith"]
        try database.write { c in
            switch temp.dialect {
            case .sqlite:
                try c.execute("CREATE VIRTUAL TABLE titles USING fts5 (title, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')")
                for title in titlesOfTheTest { try c.execute("INSERT INTO titles (title) VALUES (\(title))") }
            case .postgres:
                try c.execute("CREATE TABLE titles (title TEXT NOT NULL, document tsvector NOT NULL)")
                for title in titlesOfTheTest {
                    try c.execute("INSERT INTO titles (title, document) VALUES (\(title), pacenote_search_document(\(title), NULL))")
                }
            }
        }
        func titles(_ query: SearchQuery, prefix: Bool) throws -> [String] {
            let condition: SQL
            switch temp.dialect {
            case .sqlite: condition = "titles MATCH \(prefix ? query.prefixMatch : query.wholeWordMatch)"
            case .postgres:
                let last: SQL = prefix && query.lastWordIsPrefix ? "TRUE" : "FALSE"
                condition = "document @@ pacenote_search_query(\(query.words.joined(separator: " ")), \(last))"
            }
            return try database.read { c in
                try c.fetchAll("SELECT title FROM titles WHERE \(condition) ORDER BY title").map { row in
                    try row.decode("title", as: String.self)
                }
            }
        }
        func search(_ text: String) throws -> [String] {
            try titles(XCTUnwrap(SearchQuery(text), text), prefix: true)
        }
        func wholeWords(_ text: String) throws -> [String] {
            try titles(XCTUnwrap(SearchQuery(text), text), prefix: false)
        }

        XCTAssertEqual(try search("montee"), ["Montée de Vence"])
        XCTAssertEqual(try search("Monte\u{301}e"), ["Montée de Vence"])
        XCTAssertEqual(try search("MONTÉE vence"), ["Montée de Vence"])
        XCTAssertEqual(try search("RALLYE"), ["Rallye Monte-Carlo"])
        XCTAssertEqual(try search("port"), ["Portugal"])
        XCTAssertEqual(try search("stephane_ku"), ["stephane_kubica"])
        XCTAssertEqual(try search("stephane_k"), [], "a one-letter last word is a whole word")
        XCTAssertEqual(try search("smith"), ["alice.smith"], "words split at a dot, as a username may hold")
        XCTAssertEqual(try wholeWords("alice"), ["alice.smith"])
        XCTAssertEqual(try search("po"), ["Portugal"], "two letters: a prefix, from the prefix index")
        XCTAssertEqual(try search("MON"), ["Montée de Vence", "Rallye Monte-Carlo"], "three letters, case and accents folded")
        XCTAssertEqual(try search("p"), [], "one letter: only the word \"p\"")
        XCTAssertEqual(try search("mont"), ["Montée de Vence", "Rallye Monte-Carlo"])
        XCTAssertEqual(try search("monte carlo"), ["Rallye Monte-Carlo"])
        XCTAssertEqual(try search("rallye portugal"), [], "all words must match")
        XCTAssertEqual(try search("rallye NOT"), [])
        XCTAssertEqual(try search("rallye OR portugal"), [])
        XCTAssertEqual(try search("title:portugal"), [])
        XCTAssertEqual(try search("NEAR(rallye monte)"), [])
        XCTAssertEqual(try search("(port"), ["Portugal"])
        XCTAssertEqual(try search("^port*"), ["Portugal"])
        XCTAssertEqual(try search("a\u{E000}b 東京"), [])

        // Whole words only: "port" is not a word of "Portugal", "monte" is a word of "Monte-Carlo" but not of "Montée".
        XCTAssertEqual(try wholeWords("port"), [])
        XCTAssertEqual(try wholeWords("portugal"), ["Portugal"])
        XCTAssertEqual(try wholeWords("monte"), ["Rallye Monte-Carlo"])
        XCTAssertEqual(try wholeWords("montee"), ["Montée de Vence"])

        XCTAssertNil(SearchQuery("\""))
    }
}
