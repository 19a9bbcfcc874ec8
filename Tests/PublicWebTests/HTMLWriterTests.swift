import XCTest
@testable import PublicWeb

/// The builder's promise: no text a user typed becomes markup, in text or in an attribute.
final class HTMLWriterTests: XCTestCase {
    static let hostile = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "' onmouseover='alert(1)", "javascript:alert(1)",
        "\u{202E}gnp.exe", "a & b < c > d", "</title><script>alert(1)</script>",
    ]

    private func render(_ body: (inout HTMLWriter) -> Void) -> String {
        var html = HTMLWriter()
        body(&html)
        return String(decoding: html.bytes, as: UTF8.self)
    }

    func testTextEscapesTheFiveCharacters() {
        XCTAssertEqual(render { $0.text("<a href=\"x\">'&'</a>") }, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }

    func testHostileTextNeverOpensATagOrAnAttribute() {
        for text in Self.hostile {
            let out = render { html in
                html.element(.p, [.text(.title, text), .class(text)]) { $0.userText(text) }
            }
            let inner = out.dropFirst("<p ".count).dropLast("</p>".count)
            XCTAssertFalse(inner.contains("<script"), out)
            XCTAssertFalse(inner.contains("<img"), out)
            // Only the writer's own quotes: two per attribute.
            XCTAssertEqual(out.filter { $0 == "\"" }.count, 4, out)
            XCTAssertFalse(out.contains("'"), out)
            XCTAssertEqual(HTMLWriterTests.unescape(String(out[out.range(of: "<bdi>")!.upperBound..<out.range(of: "</bdi>")!.lowerBound])), text)
        }
    }

    func testUserTextIsIsolatedForBidi() {
        XCTAssertEqual(render { $0.userText("\u{202E}abc") }, "<bdi>\u{202E}abc</bdi>")
    }

    func testMultibyteTextIsCopiedAsIs() {
        XCTAssertEqual(render { $0.text("ñ<€>🏁&\u{202E}x") }, "ñ&lt;€&gt;🏁&amp;\u{202E}x")
        XCTAssertEqual(render { $0.text("\u{A0}\u{C2}\u{9F}") }, "\u{A0}\u{C2}\u{FFFD}", "C1 only when its two bytes are C2 80...9F")
    }

    func testControlCharactersBecomeReplacementCharacters() {
        XCTAssertEqual(render { $0.text("a\u{01}b\u{7F}c\u{85}d\te\nf") }, "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\te\nf")
    }

    func testVoidElementsAndFlags() {
        let out = render { html in
            html.void(.img, [.url(.src, .path(["media", "a b"])), .text(.alt, "")])
            html.element(.iframe, [.url(.src, .path(["x"])), .flag(.allowfullscreen)]) { _ in }
        }
        XCTAssertEqual(out, "<img src=\"/media/a%20b\" alt=\"\"><iframe src=\"/x\" allowfullscreen></iframe>")
    }

    /// What a browser makes of the references the writer emits.
    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

final class SafeURLTests: XCTestCase {
    func testOwnPathsPercentEncodeEverySegment() {
        XCTAssertEqual(SafeURL.path(["u", "a/b?c#d"]).text, "/u/a%2Fb%3Fc%23d")
        XCTAssertEqual(SafeURL.path(["v", "javascript:alert(1)"]).text, "/v/javascript%3Aalert%281%29")
        XCTAssertEqual(SafeURL.path(["v", "x"], query: [("after", "1-ab c")]).text, "/v/x?after=1-ab%20c")
        XCTAssertEqual(SafeURL.path(["u", "ñ"]).text, "/u/%C3%B1")
    }

    func testAbsoluteURLsAreHTTPOrHTTPSOnly() {
        XCTAssertNotNil(SafeURL.absolute("https://pacenote.example/media/avatars/k-400.jpg"))
        XCTAssertNotNil(SafeURL.absolute("http://127.0.0.1:8080/x"))
        for bad in ["javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,<script>", "//evil.example/x", "https:///x",
                    "https://a.example/\"onerror=x", "https://a.example/<x>", "https://a.example/ x", "vbscript:x", " https://a.example"] {
            XCTAssertNil(SafeURL.absolute(bad), bad)
        }
    }

    func testAbsoluteOnThePublicURL() throws {
        let site = try PublicURL("https://pacenote.example/")
        XCTAssertEqual(SafeURL.path(["v", "abc"]).absolute(on: site).text, "https://pacenote.example/v/abc")
    }
}
