import Foundation
import Storage
import XCTest
@testable import SocialAPI

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

    // MARK: - Against a real FTS5 index

    func testExpressionsMatchAnAccentFoldingFTS5Index() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-search-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SQLiteDatabase(configuration: .init(path: directory.appendingPathComponent("search.sqlite").path))
        defer { database.close() }

        try database.write { c in
            try c.execute("CREATE VIRTUAL TABLE titles USING fts5 (title, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')")
            for title in ["Montée de Vence", "Rallye Monte-Carlo", "Portugal", "stephane_kubica"] {
                try c.execute("INSERT INTO titles (title) VALUES (\(title))")
            }
        }
        func titles(_ expression: String) throws -> [String] {
            try database.read { c in
                try c.fetchAll("SELECT title FROM titles WHERE titles MATCH \(expression) ORDER BY title").map { row in
                    try row.decode("title", as: String.self)
                }
            }
        }
        func search(_ text: String) throws -> [String] {
            try titles(XCTUnwrap(SearchQuery(text), text).prefixMatch)
        }
        func wholeWords(_ text: String) throws -> [String] {
            try titles(XCTUnwrap(SearchQuery(text), text).wholeWordMatch)
        }

        XCTAssertEqual(try search("montee"), ["Montée de Vence"])
        XCTAssertEqual(try search("Monte\u{301}e"), ["Montée de Vence"])
        XCTAssertEqual(try search("MONTÉE vence"), ["Montée de Vence"])
        XCTAssertEqual(try search("RALLYE"), ["Rallye Monte-Carlo"])
        XCTAssertEqual(try search("port"), ["Portugal"])
        XCTAssertEqual(try search("stephane_ku"), ["stephane_kubica"])
        XCTAssertEqual(try search("stephane_k"), [], "a one-letter last word is a whole word")
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
