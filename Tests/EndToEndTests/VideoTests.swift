import XCTest

/// Registering, reading, editing and deleting videos; who may do what.
final class VideoTests: ServerTestCase {
    private var rallyId = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        rallyId = try createRally(start: UTCDate.today(-1), end: UTCDate.today(1))["id"] as? String ?? ""
    }

    private func post(_ body: [String: Any], _ token: String) throws -> HTTPResult {
        try client.request("POST", "/v1/videos", json: body, token: token)
    }

    private func valid(_ overrides: [String: Any] = [:]) -> [String: Any] {
        var body: [String: Any] = ["youtubeId": Fake.youtubeId(), "title": "SS3 Ouninpohja", "rallyId": rallyId, "day": 2]
        for (key, value) in overrides { body[key] = value }
        return body
    }

    func testCreateAnswersTheVideoAndMovesCounters() throws {
        let owner = try client.signup()
        let youtubeId = Fake.youtubeId()
        let started = Date()
        let result = try post(valid(["youtubeId": youtubeId, "title": "  Ouninpohja jump \u{1F3CE}  ", "description": "Flat out.\nSecond line"]), owner.token)
        let video = assertSuccess(result, 201)
        assertVideo(video)
        XCTAssertEqual(video["youtubeId"] as? String, youtubeId)
        XCTAssertEqual(video["title"] as? String, "Ouninpohja jump \u{1F3CE}", "the title is stored trimmed")
        XCTAssertEqual(video["description"] as? String, "Flat out.\nSecond line")
        XCTAssertEqual(video["rallyId"] as? String, rallyId)
        XCTAssertEqual(jsonInt(video["day"]), 2)
        XCTAssertEqual(jsonInt(video["likesCount"]), 0)
        XCTAssertEqual(jsonInt(video["commentsCount"]), 0)
        XCTAssertEqual(video["hidden"] as? Bool, false)
        XCTAssertEqual(video["likedByMe"] as? Bool, false)
        XCTAssertEqual(child(video, "owner")?["id"] as? String, owner.id)
        assertTimestamp(video["createdAt"], near: started)
        XCTAssertEqual(jsonInt(child(video, "owner")?["videosCount"]), 1, "the owner object already counts the video")

        let id = video["id"] as? String ?? ""
        let viewer = try client.signup()
        let fetched = try getObject("/v1/videos/\(id)", viewer.token)
        assertVideo(fetched)
        XCTAssertEqual(fetched["title"] as? String, "Ouninpohja jump \u{1F3CE}")
        XCTAssertEqual(child(fetched, "owner")?["isFollowing"] as? Bool, false, "the owner carries isFollowing for the caller")
        XCTAssertEqual(jsonInt(try getObject("/v1/users/\(owner.id)", viewer.token)["videosCount"]), 1)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", viewer.token)["videosCount"]), 1)

        let bare = assertSuccess(try post(["youtubeId": Fake.youtubeId(), "title": "No description", "rallyId": rallyId, "day": 1], owner.token), 201)
        XCTAssertEqual(bare["description"] as? String, "", "description defaults to empty")
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["videosCount"]), 2)
        StoredCounters.assertAllExact(server)
    }

    func testInvalidFieldsAreNamed() throws {
        let owner = try client.signup()
        let cases: [(String, [String: Any], String)] = [
            ("empty title", valid(["title": ""]), "title"),
            ("blank title", valid(["title": " \t\n "]), "title"),
            ("101-character title", valid(["title": String(repeating: "ö", count: 101)]), "title"),
            ("title with NUL", valid(["title": "nul\u{0}byte"]), "title"),
            ("title a number", valid(["title": 42]), "title"),
            ("2001-character description", valid(["description": String(repeating: "d", count: 2001)]), "description"),
            ("unknown rallyId", valid(["rallyId": "no-such-rally"]), "rallyId"),
            ("day 0", valid(["day": 0]), "day"),
            ("day -1", valid(["day": -1]), "day"),
            ("day past the last", valid(["day": 4]), "day"),
            ("day a string", valid(["day": "2"]), "day"),
        ]
        for (label, body, field) in cases {
            assertError(try post(body, owner.token), 400, "validation_failed", field: field, label)
        }
        var noTitle = valid()
        noTitle.removeValue(forKey: "title")
        assertError(try post(noTitle, owner.token), 400, "validation_failed", field: "title", "no title")
        var noDay = valid()
        noDay.removeValue(forKey: "day")
        assertError(try post(noDay, owner.token), 400, "validation_failed", field: "day", "no day")
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["videosCount"]), 0, "nothing was registered")

        let padded = "  " + String(repeating: "🏁", count: 100) + "  "
        let longest = assertSuccess(try post(valid(["title": padded, "description": String(repeating: "é", count: 2000), "day": 3]), owner.token),
                                    201, "100 characters (emoji count as one) after trimming, 2000-character description, the last day")
        XCTAssertEqual(longest["title"] as? String, String(repeating: "🏁", count: 100))
        XCTAssertEqual((longest["description"] as? String)?.count, 2000)
        assertError(try client.request("POST", "/v1/videos", json: valid()), 401, "unauthorized", "no session")
    }

    /// A number out of the field's range is `validation_failed` naming the field, whatever its
    /// spelling: an exponent past Double's range used to be 400 `bad_request` for the whole body.
    func testOutOfRangeDayNamesTheField() throws {
        let owner = try client.signup()
        for spelling in ["1e400", "-1e400", "1e20", "99999999999999999999", "2.5"] {
            let body = #"{"youtubeId":"\#(Fake.youtubeId())","title":"Huge day","rallyId":"\#(rallyId)","day":\#(spelling)}"#
            assertError(try client.request("POST", "/v1/videos", body: Data(body.utf8), token: owner.token),
                        400, "validation_failed", field: "day", spelling)
        }
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["videosCount"]), 0, "nothing was registered")
    }

    func testOnlyTheOwnerEdits() throws {
        let owner = try client.signup()
        let stranger = try client.signup()
        let video = try postVideo(owner, rallyId: rallyId, title: "Original", description: "First cut")
        let id = video["id"] as? String ?? ""
        for (label, token) in [("a stranger", stranger.token), ("a moderator", try moderator().token), ("an admin", try admin().token)] {
            assertError(try client.request("PATCH", "/v1/videos/\(id)", json: ["title": "Vandalised"], token: token), 403, "forbidden", label)
        }
        let patched = assertSuccess(try client.request("PATCH", "/v1/videos/\(id)", json: ["title": "  Better title  "], token: owner.token), 200)
        assertVideo(patched)
        XCTAssertEqual(patched["title"] as? String, "Better title")
        XCTAssertEqual(patched["description"] as? String, "First cut", "PATCH merges")
        XCTAssertEqual(patched["youtubeId"] as? String, video["youtubeId"] as? String)
        let described = assertSuccess(try client.request("PATCH", "/v1/videos/\(id)", json: ["description": ""], token: owner.token), 200)
        XCTAssertEqual(described["description"] as? String, "")
        XCTAssertEqual(described["title"] as? String, "Better title")
        assertError(try client.request("PATCH", "/v1/videos/\(id)", json: ["title": "   "], token: owner.token), 400, "validation_failed", field: "title")
        assertError(try client.request("PATCH", "/v1/videos/\(id)", json: ["description": String(repeating: "x", count: 2001)], token: owner.token),
                    400, "validation_failed", field: "description")
        XCTAssertEqual(try getObject("/v1/videos/\(id)", stranger.token)["title"] as? String, "Better title", "stored; refused PATCHes changed nothing")
        assertError(try client.request("PATCH", "/v1/videos/no-such-video", json: ["title": "X"], token: owner.token), 404, "not_found")
    }

    func testOwnerModeratorAndAdminDeleteAStrangerDoesNot() throws {
        let owner = try client.signup()
        let stranger = try client.signup()
        for (label, token) in [("the owner", owner.token), ("a moderator", try moderator().token), ("an admin", try admin().token)] {
            let video = try postVideo(owner, rallyId: rallyId)
            let id = video["id"] as? String ?? ""
            assertError(try client.request("DELETE", "/v1/videos/\(id)", token: stranger.token), 403, "forbidden", "a stranger")
            _ = try getObject("/v1/videos/\(id)", stranger.token)
            assertSuccess(try client.request("DELETE", "/v1/videos/\(id)", token: token), 204, label)
            assertError(try client.request("GET", "/v1/videos/\(id)", token: owner.token), 404, "not_found", "after deletion by \(label)")
            assertError(try client.request("DELETE", "/v1/videos/\(id)", token: owner.token), 404, "not_found", "deleting twice")
        }
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["videosCount"]), 0)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", owner.token)["videosCount"]), 0)
        StoredCounters.assertAllExact(server)
    }

    func testUnknownVideoIsNotFound() throws {
        let viewer = try client.signup()
        assertError(try client.request("GET", "/v1/videos/no-such-video", token: viewer.token), 404, "not_found")
        assertError(try client.request("DELETE", "/v1/videos/no-such-video", token: viewer.token), 404, "not_found")
        assertError(try client.request("GET", "/v1/videos/no-such-video"), 401, "unauthorized", "no session")
    }
}
