import XCTest
@testable import VideoRegistry

final class YouTubeIDTests: XCTestCase {
    /// What people paste into the app's "add a video" field, and the id each one must give.
    private let accepted: [(input: String, id: String)] = [
        ("dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("a-B_c1D2e3F", "a-B_c1D2e3F"),
        ("___________", "___________"),
        ("  dQw4w9WgXcQ \n", "dQw4w9WgXcQ"),
        ("\u{00A0}https://youtu.be/dQw4w9WgXcQ\t", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("http://www.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("HTTPS://WWW.YOUTUBE.COM/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("www.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://m.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://music.youtube.com/watch?v=dQw4w9WgXcQ&si=abc", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?feature=share&v=dQw4w9WgXcQ&t=42s", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?app=desktop&v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PL123&index=3&pp=ygUE", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ#t=30", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch/?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ&v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://youtu.be/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("youtu.be/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://YouTu.Be/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://youtu.be/dQw4w9WgXcQ?si=Xy_1-abc&t=12", "dQw4w9WgXcQ"),
        ("https://youtu.be/dQw4w9WgXcQ/", "dQw4w9WgXcQ"),
        ("https://youtu.be/dQw4w9WgXcQ#t=1m", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/shorts/a-B_c1D2e3F", "a-B_c1D2e3F"),
        ("https://youtube.com/shorts/a-B_c1D2e3F?feature=share", "a-B_c1D2e3F"),
        ("https://m.youtube.com/shorts/a-B_c1D2e3F/", "a-B_c1D2e3F"),
        ("https://www.youtube.com/embed/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/embed/dQw4w9WgXcQ?start=10&autoplay=1", "dQw4w9WgXcQ"),
        ("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("youtube-nocookie.com/embed/dQw4w9WgXcQ?rel=0", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/v/dQw4w9WgXcQ?version=3", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/live/dQw4w9WgXcQ?si=abc", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/live/dQw4w9WgXcQ/", "dQw4w9WgXcQ"),
    ]

    /// Inputs that must never become an id.
    private let refused: [String] = [
        "",
        "   ",
        "dQw4w9WgXc",                                           // 10 characters
        "dQw4w9WgXcQQ",                                         // 12 characters
        "dQw4w9WgX.Q",                                          // bad character
        "dQw4w9WgXcé",                                          // 11 characters, one not ASCII
        "dQw4w9 WgXcQ",
        "https://vimeo.com/dQw4w9WgXcQ",
        "https://vimeo.com/watch?v=dQw4w9WgXcQ",
        "https://youtube.com.evil.com/watch?v=dQw4w9WgXcQ",
        "https://evilyoutube.com/watch?v=dQw4w9WgXcQ",
        "https://youtube.co/watch?v=dQw4w9WgXcQ",
        "https://youtu.be.evil.com/dQw4w9WgXcQ",
        "https://www.youtube.com./watch?v=dQw4w9WgXcQ",         // trailing dot
        "https://youtube.com:8080/watch?v=dQw4w9WgXcQ",         // port
        "https://youtube.com@evil.com/watch?v=dQw4w9WgXcQ",     // userinfo trick
        "https://user@youtube.com/watch?v=dQw4w9WgXcQ",
        "https://www.youtube.com/channel/UCdQw4w9WgXcQabcdefghij",
        "https://www.youtube.com/playlist?list=PLdQw4w9WgXcQ",
        "https://www.youtube.com/@dQw4w9WgXcQ",
        "https://www.youtube.com/user/dQw4w9WgXcQ",
        "https://www.youtube.com/channel/dQw4w9WgXcQ",
        "https://www.youtube.com/watch?v=",
        "https://www.youtube.com/watch",
        "https://www.youtube.com/watch?list=PL123&index=2",
        "https://www.youtube.com/watch?V=dQw4w9WgXcQ",
        "https://www.youtube.com/watch?vv=dQw4w9WgXcQ",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&v=a-B_c1D2e3F",   // ambiguous
        "https://www.youtube.com/watch?v=dQw4w9WgXcQQ",
        "https://www.youtube.com/watch?v=dQw4w9WgXc%51",        // percent-escape
        "https://youtu.be/dQw4w9WgXc%51",
        "https://youtu.be/",
        "https://youtu.be",
        "https://youtu.be/dQw4w9WgXcQ/extra",
        "https://youtu.be//dQw4w9WgXcQ",
        "https://www.youtube.com/shorts/",
        "https://www.youtube.com/shorts/dQw4w9WgXcQ/extra",
        "https://www.youtube.com/Shorts/dQw4w9WgXcQ",
        "https://www.youtube.com/dQw4w9WgXcQ",
        "https://www.youtube.com/?v=dQw4w9WgXcQ",
        "https://www.youtube.com?v=dQw4w9WgXcQ",
        "https://www.youtube.com/watch#v=dQw4w9WgXcQ",
        "ftp://www.youtube.com/watch?v=dQw4w9WgXcQ",
        "//www.youtube.com/watch?v=dQw4w9WgXcQ",
        "javascript:alert(1)//youtube.com/watch?v=dQw4w9WgXcQ",
        "javascript://youtube.com/watch?v=dQw4w9WgXcQ",
        "data:text/html,dQw4w9WgXcQ",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ\u{0}",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ extra",
        "https://www.you\u{0301}tube.com/watch?v=dQw4w9WgXcQ",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ" + String(repeating: "&x=1", count: 600),  // over 2,048
    ]

    func testAcceptedFormsGiveTheBareID() {
        XCTAssertGreaterThanOrEqual(accepted.count, 25)
        for (input, id) in accepted {
            XCTAssertEqual(YouTubeID(parsing: input)?.value, id, "input: \(input.debugDescription)")
        }
    }

    func testRefusedFormsGiveNil() {
        XCTAssertGreaterThanOrEqual(refused.count, 20)
        for input in refused {
            XCTAssertNil(YouTubeID(parsing: input), "input: \(input.debugDescription)")
        }
    }

    func testInputLengthLimitCountsCharacters() {
        let url = "https://youtu.be/dQw4w9WgXcQ?x="
        let fits = url + String(repeating: "a", count: 2_048 - url.count)
        XCTAssertEqual(YouTubeID(parsing: fits)?.value, "dQw4w9WgXcQ")
        XCTAssertNil(YouTubeID(parsing: fits + "a"))
        // Non-ASCII parameters take more bytes than characters; the limit is in characters.
        let accented = url + String(repeating: "é", count: 2_048 - url.count)
        XCTAssertEqual(YouTubeID(parsing: accented)?.value, "dQw4w9WgXcQ")
        XCTAssertNil(YouTubeID(parsing: accented + "é"))
        XCTAssertNil(YouTubeID(parsing: String(repeating: "x", count: 1_000_000)))
    }

    func testDerivedURLs() throws {
        let id = try XCTUnwrap(YouTubeID(parsing: "https://youtu.be/dQw4w9WgXcQ?t=3"))
        XCTAssertEqual(id.thumbnailURL, "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg")
        XCTAssertEqual(id.watchURL, "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        XCTAssertEqual(id.description, "dQw4w9WgXcQ")
        XCTAssertEqual("\(id)", "dQw4w9WgXcQ")
    }

    func testEveryFormOfOneVideoIsTheSameValue() {
        let forms = ["dQw4w9WgXcQ", "https://youtu.be/dQw4w9WgXcQ", "https://m.youtube.com/watch?v=dQw4w9WgXcQ", "youtube.com/shorts/dQw4w9WgXcQ"]
        XCTAssertEqual(Set(forms.compactMap(YouTubeID.init(parsing:))).count, 1)
        XCTAssertNotEqual(YouTubeID(parsing: "dQw4w9WgXcQ"), YouTubeID(parsing: "dqw4w9wgxcq"))
    }
}
