import Storage
import XCTest

/// Deleting a video or an account takes everything about it along, and every counter it touched
/// is corrected (checked in the API and against the rows in the database).
final class CascadeTests: ServerTestCase {
    private func count(_ sql: SQL) throws -> Int {
        try server.withDatabase { try $0.int(sql) }
    }

    func testDeletingAVideoRemovesItsActivities() throws {
        let owner = try client.signup()
        let fans = [try client.signup(), try client.signup()]
        let (rally, video) = try rallyAndVideo(owner: owner)
        let rallyId = rally["id"] as? String ?? ""
        let id = video["id"] as? String ?? ""
        let kept = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        for fan in fans {
            assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: fan.token), 200)
            assertSuccess(try client.request("POST", "/v1/videos/\(id)/comments", json: ["content": "Nice"], token: fan.token), 201)
            assertSuccess(try client.request("POST", "/v1/videos/\(id)/flags", json: ["reason": "dust"], token: fan.token), 201)
            assertSuccess(try client.request("PUT", "/v1/videos/\(kept)/like", token: fan.token), 200)
        }
        XCTAssertEqual(try count("SELECT COUNT(*) FROM activities WHERE video_id = \(id)"), 6)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["videosCount"]), 2)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", owner.token)["videosCount"]), 2)

        assertSuccess(try client.request("DELETE", "/v1/videos/\(id)", token: owner.token), 204)
        XCTAssertEqual(try count("SELECT COUNT(*) FROM activities WHERE video_id = \(id)"), 0, "its likes, comments and flags are gone")
        XCTAssertEqual(try count("SELECT COUNT(*) FROM videos WHERE id = \(id)"), 0)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["videosCount"]), 1, "the owner's videosCount")
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", owner.token)["videosCount"]), 1, "the rally's videosCount")
        for list in ["comments", "likes"] {
            assertError(try client.request("GET", "/v1/videos/\(id)/\(list)", token: fans[0].token), 404, "not_found", "its \(list)")
        }
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(kept)", owner.token)["likesCount"]), 2, "the other video keeps its likes")
        XCTAssertEqual(try count("SELECT COUNT(*) FROM activities WHERE video_id = \(kept)"), 2)
        XCTAssertFalse(ids(try firstPage("/v1/users/\(owner.id)/videos", fans[0].token)).contains(id))
        XCTAssertFalse(ids(try firstPage("/v1/feed/likes", fans[0].token)).contains(id), "gone from the fans' likes")
        StoredCounters.assertAllExact(server)
    }

    func testDeletingAnAccountRemovesEverythingFromAndToIt() throws {
        let leaver = try client.signup()
        let other = try client.signup()      // owns a video the leaver liked, commented on and flagged; followed by the leaver
        let follower = try client.signup()   // follows the leaver, likes and comments on the leaver's video
        let bystander = try client.signup()  // comments on the other's video, so its list has someone left
        let rally = try createRally()
        let rallyId = rally["id"] as? String ?? ""
        let leaversVideo = try postVideo(leaver, rallyId: rallyId, day: 2)["id"] as? String ?? ""
        let othersVideo = try postVideo(other, rallyId: rallyId, day: 2)["id"] as? String ?? ""

        assertSuccess(try client.request("PUT", "/v1/videos/\(othersVideo)/like", token: leaver.token), 200)
        assertSuccess(try client.request("PUT", "/v1/videos/\(othersVideo)/like", token: bystander.token), 200)
        assertSuccess(try client.request("POST", "/v1/videos/\(othersVideo)/comments", json: ["content": "From the leaver"], token: leaver.token), 201)
        assertSuccess(try client.request("POST", "/v1/videos/\(othersVideo)/comments", json: ["content": "From the bystander"], token: bystander.token), 201)
        assertSuccess(try client.request("POST", "/v1/videos/\(othersVideo)/flags", json: ["reason": "spam"], token: leaver.token), 201)
        assertSuccess(try client.request("PUT", "/v1/users/\(other.id)/follow", token: leaver.token), 200)
        assertSuccess(try client.request("PUT", "/v1/users/\(leaver.id)/follow", token: follower.token), 200)
        assertSuccess(try client.request("PUT", "/v1/users/\(other.id)/follow", token: follower.token), 200)
        assertSuccess(try client.request("PUT", "/v1/videos/\(leaversVideo)/like", token: follower.token), 200)
        assertSuccess(try client.request("POST", "/v1/videos/\(leaversVideo)/comments", json: ["content": "Bye"], token: follower.token), 201)

        let othersBefore = try getObject("/v1/videos/\(othersVideo)", other.token)
        XCTAssertEqual(jsonInt(othersBefore["likesCount"]), 2)
        XCTAssertEqual(jsonInt(othersBefore["commentsCount"]), 2)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", other.token)["followersCount"]), 2)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", follower.token)["followingCount"]), 2)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", other.token)["videosCount"]), 2)
        XCTAssertGreaterThan(try count("SELECT COUNT(*) FROM activities WHERE from_user_id = \(leaver.id) OR to_user_id = \(leaver.id)"), 0)

        assertSuccess(try client.request("DELETE", "/v1/users/me", json: ["password": leaver.password], token: leaver.token), 204)

        // The database: nothing from, to or about the leaver.
        XCTAssertEqual(try count("SELECT COUNT(*) FROM activities WHERE from_user_id = \(leaver.id) OR to_user_id = \(leaver.id)"), 0, "activities from or to it")
        XCTAssertEqual(try count("SELECT COUNT(*) FROM activities WHERE video_id = \(leaversVideo)"), 0, "activities about its video")
        XCTAssertEqual(try count("SELECT COUNT(*) FROM videos WHERE owner_id = \(leaver.id)"), 0, "its videos")
        XCTAssertEqual(try count("SELECT COUNT(*) FROM users WHERE id = \(leaver.id)"), 0)
        XCTAssertEqual(try count("SELECT flags_count FROM videos WHERE id = \(othersVideo)"), 0, "its flag no longer counts")
        StoredCounters.assertAllExact(server, "after the account deletion")

        // The API: every counter it touched, corrected.
        let othersAfter = try getObject("/v1/videos/\(othersVideo)", other.token)
        XCTAssertEqual(jsonInt(othersAfter["likesCount"]), 1, "its like on another's video")
        XCTAssertEqual(jsonInt(othersAfter["commentsCount"]), 1, "its comment on another's video")
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", other.token)["followersCount"]), 1, "the user it followed")
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", follower.token)["followingCount"]), 1, "the user who followed it")
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(rallyId)", other.token)["videosCount"]), 1, "the rally's videosCount")
        assertError(try client.request("GET", "/v1/videos/\(leaversVideo)", token: follower.token), 404, "not_found", "its video")

        // Other users' lists no longer show it.
        XCTAssertEqual(ids(try firstPage("/v1/videos/\(othersVideo)/likes", other.token)), [bystander.id])
        XCTAssertEqual(try firstPage("/v1/videos/\(othersVideo)/comments", other.token).compactMap { child($0, "fromUser")?["id"] as? String }, [bystander.id])
        XCTAssertEqual(ids(try firstPage("/v1/users/\(other.id)/followers", other.token)), [follower.id])
        XCTAssertEqual(ids(try firstPage("/v1/users/\(follower.id)/following", follower.token)), [other.id])
        XCTAssertFalse(ids(try firstPage("/v1/rallies/\(rallyId)/days/2/videos?sort=recent", other.token)).contains(leaversVideo))
        XCTAssertFalse(ids(try firstPage("/v1/feed/likes", follower.token)).contains(leaversVideo), "gone from the follower's likes")
        XCTAssertFalse(ids(try firstPage("/v1/search/users?q=\(leaver.username)", other.token)).contains(leaver.id), "gone from search")
        let news = try firstPage("/v1/feed/news", other.token)
        XCTAssertFalse(news.contains { child($0, "fromUser")?["id"] as? String == leaver.id }, "gone from the news of those it acted on")
    }
}
