import Auth
import Foundation
import XCTest
@testable import PublicWeb

/// The page's language from `Accept-Language`, and the previews' length limits.
final class LanguageTests: XCTestCase {
    func testAcceptLanguageChoosesByQValue() {
        let cases: [(String?, AccountLocale)] = [
            (nil, .english), ("", .english), ("es", .spanish), ("es-MX,es;q=0.9", .spanish), ("en-GB,en;q=0.9,es;q=0.8", .english),
            ("fr-FR,fr;q=0.9,es;q=0.8,en;q=0.7", .spanish), ("fr,de", .english), ("en;q=0.2,es;q=0.9", .spanish),
            ("es;q=0", .english), ("*", .english), ("ES", .spanish), ("es;q=abc", .spanish), ("en;q=0.5, es;q=0.5", .english),
        ]
        for (header, expected) in cases {
            XCTAssertEqual(Words(AccountLocale(acceptLanguage: header)).locale, expected, header ?? "nil")
        }
    }

    func testBothLanguagesHaveTheirWords() {
        XCTAssertEqual(Words(.english).comments, "Comments")
        XCTAssertEqual(Words(.spanish).comments, "Comentarios")
        XCTAssertEqual(Words(.english).likes(1), "1 like")
        XCTAssertEqual(Words(.english).likes(2), "2 likes")
        XCTAssertEqual(Words(.spanish).commentsCount(2), "2 comentarios")
    }
}

final class OpenGraphTests: XCTestCase {
    func testTitleAndDescriptionAreCutOnGraphemeBoundaries() {
        let long = String(repeating: "Flat out over the crest ", count: 20)
        let title = OpenGraph.truncated(long, limit: OpenGraph.titleLimit)
        XCTAssertLessThanOrEqual(title.unicodeScalars.count, 90)
        XCTAssertTrue(title.hasSuffix("…"))
        // A family emoji is 7 scalars and one character: never split.
        let emoji = String(repeating: "👨‍👩‍👧‍👦", count: 30)
        let cut = OpenGraph.truncated(emoji, limit: 90)
        XCTAssertLessThanOrEqual(cut.unicodeScalars.count, 90)
        XCTAssertEqual(cut.dropLast().count * 7, cut.dropLast().unicodeScalars.count, "whole graphemes only")
        // Combining marks stay with their letter.
        let accents = String(repeating: "e\u{301}", count: 100)
        XCTAssertTrue(OpenGraph.truncated(accents, limit: 90).dropLast().unicodeScalars.count % 2 == 0)
        XCTAssertEqual(OpenGraph.truncated("Short", limit: 90), "Short")
    }

    func testPreviewTagsOfAVideo() throws {
        let site = try PublicURL("https://pacenote.example")
        let preview = OpenGraph(title: "T", description: "line one\n\nline two", url: SafeURL.path(["v", "a"]).absolute(on: site),
                                image: SafeURL.path(["web", "card.png"]).absolute(on: site),
                                kind: .video(embed: SafeURL.path(["x"]).absolute(on: site)))
        XCTAssertEqual(preview.description, "line one line two")
        var html = HTMLWriter()
        preview.write(to: &html, siteName: "Pacenote", locale: "en")
        let out = String(decoding: html.bytes, as: UTF8.self)
        for tag in ["property=\"og:type\" content=\"video.other\"", "name=\"twitter:card\" content=\"player\"",
                    "property=\"og:url\" content=\"https://pacenote.example/v/a\"", "name=\"twitter:player\""] {
            XCTAssertTrue(out.contains(tag), "\(tag) in \(out)")
        }
    }
}

final class SettingsTests: XCTestCase {
    func testPublicURLMustBeAbsoluteHTTPWithoutAQuery() throws {
        XCTAssertEqual(try PublicURL("https://pacenote.example/").text, "https://pacenote.example")
        XCTAssertEqual(try PublicURL("https://Pacenote.example:8443/base").origin, "https://pacenote.example:8443")
        XCTAssertEqual(try PublicURL("https://pacenote.example/base/").path, "/base")
        for bad in ["", "pacenote.example", "ftp://pacenote.example", "https://", "https://pacenote.example/?a=1", "https://u:p@pacenote.example",
                    "https://pacenote.example/#x", "javascript:alert(1)", "https://pace note.example"] {
            XCTAssertThrowsError(try PublicURL(bad), bad)
        }
    }

    func testAppleAppID() throws {
        XCTAssertEqual(try AppleAppID("ABCDE12345.com.example.pacenote").text, "ABCDE12345.com.example.pacenote")
        for bad in ["com.example.pacenote", "ABCDE1234.com.example", "abcde12345.com.example", "ABCDE12345.", "ABCDE12345.com/x"] {
            XCTAssertThrowsError(try AppleAppID(bad), bad)
        }
    }

    func testAndroidFingerprintIs32ColonSeparatedBytes() throws {
        let print = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
        let app = try AndroidApp(packageName: "com.example.pacenote", fingerprints: print.lowercased() + ", " + print)
        XCTAssertEqual(app.certificateFingerprints, [print, print])
        for bad in [String(print.dropLast(3)), print + ":00", print.replacingOccurrences(of: ":", with: ""), "ZZ" + print.dropFirst(2), ""] {
            XCTAssertThrowsError(try AndroidApp(packageName: "com.example.pacenote", fingerprints: bad), bad)
        }
        XCTAssertThrowsError(try AndroidApp(packageName: "pacenote", fingerprints: print))
        XCTAssertThrowsError(try AndroidApp(packageName: "com.1example.app", fingerprints: print))
    }
}
