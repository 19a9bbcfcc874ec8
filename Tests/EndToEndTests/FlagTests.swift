import XCTest

/// Flags: one per user and video, never on one's own video.
final class FlagTests: ServerTestCase {
    func testFlagAnswersAnInappropriateActivity() throws {
        let owner = try client.signup()
        let flagger = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let flag = assertSuccess(try client.request("POST", "/v1/videos/\(id)/flags", json: ["reason": "  Spectators in a dangerous place  "], token: flagger.token), 201)
        assertActivity(flag, type: "inappropriate")
        XCTAssertEqual(child(flag, "fromUser")?["id"] as? String, flagger.id)
        XCTAssertEqual(child(flag, "toUser")?["id"] as? String, owner.id)
        XCTAssertEqual(child(flag, "video")?["id"] as? String, id)
        XCTAssertTrue((flag["content"] as? String ?? "").contains("Spectators in a dangerous place"), "the reason is the flag's content: \(flag)")
        XCTAssertEqual(try StoredCounters.activities(server, type: 3, videoId: id), 1)

        assertError(try client.request("POST", "/v1/videos/\(id)/flags", json: ["reason": "again"], token: flagger.token), 409, "conflict", "a second flag")
        assertError(try client.request("POST", "/v1/videos/\(id)/flags", json: [String: Any](), token: flagger.token), 409, "conflict", "a second flag without reason")
        XCTAssertEqual(try StoredCounters.activities(server, type: 3, videoId: id), 1, "still one flag row")
        StoredCounters.assertAllExact(server)
    }

    func testReasonIsOptionalAndAtMost500Characters() throws {
        let owner = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let noReason = assertSuccess(try client.request("POST", "/v1/videos/\(id)/flags", json: [String: Any](), token: try client.signup().token), 201, "no reason")
        assertActivity(noReason, type: "inappropriate")
        assertSuccess(try client.request("POST", "/v1/videos/\(id)/flags", json: ["reason": String(repeating: "r", count: 500)], token: try client.signup().token), 201, "500 characters")
        assertError(try client.request("POST", "/v1/videos/\(id)/flags", json: ["reason": String(repeating: "r", count: 501)], token: try client.signup().token),
                    400, "validation_failed", field: "reason", "501 characters")
        XCTAssertEqual(try StoredCounters.activities(server, type: 3, videoId: id), 2)
    }

    func testOwnVideoAndUnknownVideo() throws {
        let owner = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        assertError(try client.request("POST", "/v1/videos/\(id)/flags", json: ["reason": "mine"], token: owner.token), 403, "forbidden", "flagging one's own video")
        assertError(try client.request("POST", "/v1/videos/no-such-video/flags", json: [String: Any](), token: owner.token), 404, "not_found")
        assertError(try client.request("POST", "/v1/videos/\(id)/flags", json: [String: Any]()), 401, "unauthorized")
        XCTAssertEqual(try StoredCounters.activities(server, type: 3, videoId: id), 0)
    }
}
