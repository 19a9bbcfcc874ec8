import TestSupport
import XCTest

/// Hidden videos: 404 and absent from every list for everyone but their owner and the staff,
/// who see them with `hidden: true`.
final class HiddenVideoTests: ServerTestCase {
    private struct Scene {
        let owner: Account
        let stranger: Account
        let rallyId: String
        let videoId: String
        let word: String
    }

    /// A video with a unique title word, a like and a comment by a third user.
    private func scene() throws -> Scene {
        let owner = try client.signup()
        let stranger = try client.signup()
        let fan = try client.signup()
        let word = Fake.word()
        let (rally, video) = try rallyAndVideo(owner: owner, title: "Hidden \(word) stage")
        let id = video["id"] as? String ?? ""
        assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: fan.token), 200)
        assertSuccess(try client.request("POST", "/v1/videos/\(id)/comments", json: ["content": "Nice"], token: fan.token), 201)
        return Scene(owner: owner, stranger: stranger, rallyId: rally["id"] as? String ?? "", videoId: id, word: word)
    }

    private func lists(_ scene: Scene) -> [String] {
        [
            "/v1/users/\(scene.owner.id)/videos",
            "/v1/rallies/\(scene.rallyId)/days/1/videos?sort=recent",
            "/v1/rallies/\(scene.rallyId)/days/1/videos?sort=top",
            "/v1/search/videos?q=\(scene.word)",
        ]
    }

    private func assertVisible(_ scene: Scene, to token: String, hidden: Bool, _ who: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let video = try getObject("/v1/videos/\(scene.videoId)", token, "GET as \(who)", file: file, line: line)
        XCTAssertEqual(video["hidden"] as? Bool, hidden, "\(who) sees hidden: \(hidden)", file: file, line: line)
        for path in lists(scene) {
            let items = try firstPage(path, token, file: file, line: line)
            let match = items.first { $0["id"] as? String == scene.videoId }
            XCTAssertNotNil(match, "\(who) finds the video in \(path)", file: file, line: line)
            XCTAssertEqual(match?["hidden"] as? Bool, hidden, "\(path) as \(who)", file: file, line: line)
        }
        XCTAssertEqual(try firstPage("/v1/videos/\(scene.videoId)/likes", token, file: file, line: line).count, 1, "\(who) reads its likes", file: file, line: line)
        XCTAssertEqual(try firstPage("/v1/videos/\(scene.videoId)/comments", token, file: file, line: line).count, 1, "\(who) reads its comments", file: file, line: line)
    }

    private func assertInvisible(_ scene: Scene, to token: String, _ who: String, file: StaticString = #filePath, line: UInt = #line) throws {
        assertError(try client.request("GET", "/v1/videos/\(scene.videoId)", token: token), 404, "not_found", "GET as \(who)", file: file, line: line)
        for path in lists(scene) {
            XCTAssertFalse(ids(try firstPage(path, token, file: file, line: line)).contains(scene.videoId), "\(path) hides it from \(who)", file: file, line: line)
        }
        for list in ["likes", "comments"] {
            assertError(try client.request("GET", "/v1/videos/\(scene.videoId)/\(list)", token: token), 404, "not_found",
                        "the \(list) of a hidden video, as \(who)", file: file, line: line)
        }
    }

    func testModeratorHidesAndRestores() throws {
        let scene = try scene()
        try assertVisible(scene, to: scene.stranger.token, hidden: false, "a stranger, before hiding")
        assertError(try client.request("POST", "/v1/moderation/videos/\(scene.videoId)/hide", token: scene.stranger.token), 403, "forbidden", "a plain user hides")
        assertError(try client.request("POST", "/v1/moderation/videos/\(scene.videoId)/hide", token: scene.owner.token), 403, "forbidden", "the owner hides")

        let hidden = assertSuccess(try client.request("POST", "/v1/moderation/videos/\(scene.videoId)/hide", token: try moderator().token), 200)
        assertVideo(hidden)
        XCTAssertEqual(hidden["hidden"] as? Bool, true)
        try assertInvisible(scene, to: scene.stranger.token, "a stranger")
        try assertVisible(scene, to: scene.owner.token, hidden: true, "the owner")
        try assertVisible(scene, to: try moderator().token, hidden: true, "a moderator")
        try assertVisible(scene, to: try admin().token, hidden: true, "an admin")
        assertError(try client.request("PUT", "/v1/videos/\(scene.videoId)/like", token: scene.stranger.token), 404, "not_found", "liking a hidden video")
        assertError(try client.request("POST", "/v1/videos/\(scene.videoId)/comments", json: ["content": "hi"], token: scene.stranger.token),
                    404, "not_found", "commenting on a hidden video")

        assertError(try client.request("POST", "/v1/moderation/videos/\(scene.videoId)/restore", token: scene.stranger.token), 403, "forbidden")
        let restored = assertSuccess(try client.request("POST", "/v1/moderation/videos/\(scene.videoId)/restore", token: try admin().token), 200)
        XCTAssertEqual(restored["hidden"] as? Bool, false)
        try assertVisible(scene, to: scene.stranger.token, hidden: false, "a stranger, after restoring")
        assertError(try client.request("POST", "/v1/moderation/videos/no-such-video/hide", token: try admin().token), 404, "not_found")
    }

    func testFiveDistinctFlagsHideAutomatically() throws {
        let scene = try scene()
        for index in 0..<5 {
            let flagger = try client.signup()
            assertSuccess(try client.request("POST", "/v1/videos/\(scene.videoId)/flags", json: ["reason": "flag \(index)"], token: flagger.token), 201)
            if index < 4 {
                XCTAssertEqual(try client.request("GET", "/v1/videos/\(scene.videoId)", token: scene.stranger.token).status, 200,
                               "\(index + 1) flags: still visible")
            }
        }
        try assertInvisible(scene, to: scene.stranger.token, "a stranger, after five flags")
        try assertVisible(scene, to: scene.owner.token, hidden: true, "the owner, after five flags")
        try assertVisible(scene, to: try moderator().token, hidden: true, "a moderator, after five flags")
    }

    /// API.md "Visibility": `videosCount` (users, rallies) counts the videos everyone can see,
    /// one number for everyone (the owner and moderators included), so it never tells that
    /// moderated content exists. Hiding, restoring, an automatic hide, deleting a hidden video
    /// and a ban over a hidden video each leave it exact.
    func testVideosCountCountsOnlyTheVideosEveryoneCanSee() throws {
        var owner = try client.signup()
        let stranger = try client.signup(), moderator = try moderator()
        let rallyId = try createRally()["id"] as? String ?? ""
        let first = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        let second = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        func assertCounts(_ expected: Int, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
            for (who, token) in [("a stranger", stranger.token), ("the owner", owner.token), ("a moderator", moderator.token)] {
                XCTAssertEqual(jsonInt(try getObject("/v1/users/\(owner.id)", token, file: file, line: line)["videosCount"]), expected,
                               "\(context): the owner's videosCount as \(who)", file: file, line: line)
                XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", token, file: file, line: line)["videosCount"]), expected,
                               "\(context): the rally's videosCount as \(who)", file: file, line: line)
            }
            XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token, file: file, line: line)["videosCount"]), expected,
                           "\(context): /v1/users/me", file: file, line: line)
            StoredCounters.assertAllExact(server, context, file: file, line: line)
        }
        try assertCounts(2, "before hiding")

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(first)/hide", token: moderator.token), 200)
        try assertCounts(1, "after a hide")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(first)/hide", token: moderator.token), 200)
        try assertCounts(1, "after hiding it again")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(first)/restore", token: moderator.token), 200)
        try assertCounts(2, "after the restore")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(first)/restore", token: moderator.token), 200)
        try assertCounts(2, "after restoring it again")

        for index in 0..<5 {
            let flagger = try client.signup()
            assertSuccess(try client.request("POST", "/v1/videos/\(second)/flags", json: ["reason": "flag \(index)"], token: flagger.token), 201)
        }
        XCTAssertEqual(try getObject("/v1/videos/\(second)", moderator.token)["hidden"] as? Bool, true, "five flags hid it")
        try assertCounts(1, "after an automatic hide")

        // A ban and an unban over a hidden video: it stays out of every count.
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/ban", json: ["reason": "test"], token: moderator.token), 200)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", moderator.token)["videosCount"]), 0, "banned: nothing counts")
        StoredCounters.assertAllExact(server, "while the owner is banned")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/unban", json: ["reason": "test"], token: moderator.token), 200)
        owner.token = try client.login(owner.username, owner.password).token
        XCTAssertEqual(jsonInt(try getObject("/v1/users/\(owner.id)", stranger.token)["videosCount"]), 1, "after the unban: the visible one")
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", stranger.token)["videosCount"]), 1)
        StoredCounters.assertAllExact(server, "after the unban")

        // Deleting the hidden video takes nothing more off: it was not counted.
        assertSuccess(try client.request("DELETE", "/v1/videos/\(second)", token: owner.token), 204)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/\(owner.id)", stranger.token)["videosCount"]), 1, "deleting a hidden video")
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", stranger.token)["videosCount"]), 1)
        StoredCounters.assertAllExact(server, "after deleting the hidden video")
        assertSuccess(try client.request("DELETE", "/v1/videos/\(first)", token: moderator.token), 204)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", stranger.token)["videosCount"]), 0, "deleting the visible one")
        StoredCounters.assertAllExact(server, "after deleting both")
    }

    func testActivitiesAboutAHiddenVideoLeaveOthersLists() throws {
        let scene = try scene()
        let liker = try client.signup()
        let watcher = try client.signup()
        assertSuccess(try client.request("PUT", "/v1/users/\(liker.id)/follow", token: watcher.token), 200)
        assertSuccess(try client.request("PUT", "/v1/videos/\(scene.videoId)/like", token: liker.token), 200)
        assertSuccess(try client.request("POST", "/v1/videos/\(scene.videoId)/comments", json: ["content": "Sideways!"], token: liker.token), 201)
        func aboutVideo(_ items: [[String: Any]]) -> Int {
            items.filter { child($0, "video")?["id"] as? String == scene.videoId || $0["id"] as? String == scene.videoId }.count
        }
        XCTAssertTrue(try waitUntil { aboutVideo(try firstPage("/v1/feed/following", watcher.token)) == 2 },
                      "the watcher sees the like and the comment (the outbox worker brings them)")
        XCTAssertEqual(aboutVideo(try firstPage("/v1/feed/likes", liker.token)), 1, "the liker's likes list has it")

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(scene.videoId)/hide", token: try moderator().token), 200)
        XCTAssertEqual(aboutVideo(try firstPage("/v1/feed/following", watcher.token)), 0, "activities about a hidden video leave others' lists")
        XCTAssertEqual(aboutVideo(try firstPage("/v1/feed/likes", liker.token)), 0, "a hidden video leaves the liker's likes list")
        XCTAssertGreaterThanOrEqual(aboutVideo(try firstPage("/v1/feed/news", scene.owner.token)), 2,
                                    "the owner still sees activities about a video they can see")
    }
}
