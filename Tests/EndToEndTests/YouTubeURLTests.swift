import XCTest

/// `youtubeId` accepts a bare id or the URL forms people paste, stores the bare id, refuses the rest,
/// and one YouTube video is registered once whatever form it comes in.
final class YouTubeURLTests: ServerTestCase {
    private var rallyId = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        rallyId = try createRally()["id"] as? String ?? ""
    }

    private func post(_ youtubeId: String, _ token: String) throws -> HTTPResult {
        try client.request("POST", "/v1/videos", json: ["youtubeId": youtubeId, "title": "Form test", "rallyId": rallyId, "day": 1], token: token)
    }

    /// Every accepted form of `id`.
    static func forms(_ id: String) -> [String] {
        [
            id,
            "https://www.youtube.com/watch?v=\(id)",
            "https://www.youtube.com/watch?feature=share&v=\(id)",
            "https://www.youtube.com/watch?v=\(id)&t=42s",
            "https://www.youtube.com/watch?v=\(id)&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG&index=3",
            "https://www.youtube.com/watch?app=desktop&v=\(id)&si=AbCdEfGh12",
            "https://youtube.com/watch?v=\(id)",
            "https://youtu.be/\(id)",
            "https://youtu.be/\(id)?si=Xy12AbCdEf",
            "https://youtu.be/\(id)?t=30",
            "https://www.youtube.com/shorts/\(id)",
            "https://youtube.com/shorts/\(id)?feature=share",
            "https://www.youtube.com/embed/\(id)",
            "https://m.youtube.com/watch?v=\(id)",
            "https://music.youtube.com/watch?v=\(id)",
            "https://www.youtube-nocookie.com/embed/\(id)",
            "www.youtube.com/watch?v=\(id)",
            "youtube.com/watch?v=\(id)",
            "youtu.be/\(id)",
            "m.youtube.com/watch?v=\(id)",
            "http://www.youtube.com/watch?v=\(id)",
            "http://youtu.be/\(id)",
        ]
    }

    func testEveryCommonFormStoresTheBareId() throws {
        let owner = try client.signup()
        for (index, form) in Self.forms("PLACEHOLDER").enumerated() {
            var id = Fake.youtubeId()
            if index % 3 == 1 { id = String(id.prefix(5)) + "-_" + String(id.suffix(4)) }  // '-' and '_' are id characters
            let input = form.replacingOccurrences(of: "PLACEHOLDER", with: id)
            let result = try post(input, owner.token)
            let video = assertSuccess(result, 201, "youtubeId \(input)")
            XCTAssertEqual(video["youtubeId"] as? String, id, "\(input) is stored as the bare id")
            XCTAssertEqual(video["watchUrl"] as? String, "https://www.youtube.com/watch?v=\(id)", input)
            XCTAssertEqual(video["thumbnailUrl"] as? String, "https://i.ytimg.com/vi/\(id)/hqdefault.jpg", input)
        }
    }

    func testAnythingElseIsInvalidYouTubeId() throws {
        let owner = try client.signup()
        let id = Fake.youtubeId()
        let malformed: [(String, String)] = [
            ("10 characters", String(id.prefix(10))),
            ("12 characters", id + "A"),
            ("a character outside [A-Za-z0-9_-]", String(id.prefix(10)) + "$"),
            ("a space inside", String(id.prefix(5)) + " " + String(id.suffix(5))),
            ("a dot inside", String(id.prefix(5)) + "." + String(id.suffix(5))),
            ("non-ASCII letters", String(id.prefix(9)) + "éé"),
            ("vimeo", "https://vimeo.com/123456789"),
            ("vimeo with an 11-char path", "https://vimeo.com/\(id)"),
            ("a look-alike host", "https://youtube.com.evil.com/watch?v=\(id)"),
            ("another host with a v= parameter", "https://evil.com/watch?v=\(id)"),
            ("a host ending in youtube.com", "https://notyoutube.com/watch?v=\(id)"),
            ("a channel URL", "https://www.youtube.com/channel/UCxWr8ZmSVxXx3ZKzAwTzqkA"),
            ("a handle URL", "https://www.youtube.com/@WRC"),
            ("a playlist URL", "https://www.youtube.com/playlist?list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG"),
            ("watch?v= empty", "https://www.youtube.com/watch?v="),
            ("watch without v", "https://www.youtube.com/watch?t=42"),
            ("watch?v= with 12 characters", "https://www.youtube.com/watch?v=\(id)A"),
            ("youtu.be without an id", "https://youtu.be/"),
            ("youtu.be with 10 characters", "https://youtu.be/\(id.prefix(10))"),
            ("javascript:", "javascript:alert('\(id)')"),
            ("javascript: with a watch path", "javascript://www.youtube.com/watch?v=\(id)"),
            ("userinfo trick", "https://youtube.com@evil.com/watch?v=\(id)"),
            ("userinfo trick on youtu.be", "https://youtu.be@evil.com/\(id)"),
            ("ftp scheme", "ftp://www.youtube.com/watch?v=\(id)"),
            ("3,000 characters ending in an id", String(repeating: "a", count: 2989) + id),
            ("3,000 letters", String(repeating: "a", count: 3000)),
            ("empty", ""),
            ("blank", "   "),
            ("a NUL byte", String(id.prefix(10)) + "\u{0}"),
        ]
        for (label, value) in malformed {
            assertError(try post(value, owner.token), 400, "invalid_youtube_id", field: "youtubeId", label)
        }
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["videosCount"]), 0, "nothing was registered")
        assertSuccess(try post(id, owner.token), 201, "the bare id itself is fine and was never taken by a refused form")
    }

    func testTheSameVideoInAnotherFormIsADuplicate() throws {
        let first = try client.signup()
        let second = try client.signup()
        let id = Fake.youtubeId()
        let video = assertSuccess(try post("https://youtu.be/\(id)?si=abc", first.token), 201)
        for form in Self.forms(id) {
            assertError(try post(form, second.token), 409, "duplicate_video", "\(form) names the same video")
        }
        assertError(try post(id, first.token), 409, "duplicate_video", "the owner registering it again")
        let fetched = try getObject("/v1/videos/\(video["id"] as? String ?? "")", second.token)
        XCTAssertEqual(child(fetched, "owner")?["id"] as? String, first.id, "the first registration stands")

        let other = Fake.youtubeId()
        let lower = other.lowercased() == other.uppercased() ? nil : other.swapcase
        if let lower {
            assertSuccess(try post(lower, second.token), 201, "ids are case-sensitive: \(other) and \(lower) are different videos")
        }
        assertSuccess(try post(other, second.token), 201)
    }
}

private extension String {
    /// Upper case letters lowered and lower case raised.
    var swapcase: String {
        String(map { character -> Character in
            let text = String(character)
            return Character(text == text.uppercased() ? text.lowercased() : text.uppercased())
        })
    }
}
