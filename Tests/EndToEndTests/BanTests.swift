import XCTest

/// Bans (API.md "Moderation"): a banned user's sessions end, login answers 403 `account_banned`,
/// and their videos, likes and comments leave every list and counter others see, until the unban.
final class BanTests: ServerTestCase {
    func testBanTakesContentOutOfListsAndCountersAndUnbanBringsItBack() throws {
        let moderator = try moderator()
        let author = try client.signup()
        let viewer = try client.signup()
        let banned = try client.signup()
        let (rally, authorVideo) = try rallyAndVideo(owner: author)
        let rallyId = rally["id"] as? String ?? ""
        let a = authorVideo["id"] as? String ?? ""
        let b = try postVideo(banned, rallyId: rallyId)["id"] as? String ?? ""
        assertSuccess(try client.request("PUT", "/v1/videos/\(a)/like", token: banned.token), 200)
        assertSuccess(try client.request("PUT", "/v1/videos/\(a)/like", token: viewer.token), 200)
        assertSuccess(try client.request("POST", "/v1/videos/\(a)/comments", json: ["content": "by the banned"], token: banned.token), 201)
        assertSuccess(try client.request("PUT", "/v1/videos/\(b)/like", token: viewer.token), 200)

        func seen() throws -> (likes: Int?, comments: Int?, likers: [String], commenters: [String], day: [String], rallyCount: Int?, bannedVideos: Int?, news: [String]) {
            let video = try getObject("/v1/videos/\(a)", viewer.token)
            return (jsonInt(video["likesCount"]), jsonInt(video["commentsCount"]),
                    ids(try firstPage("/v1/videos/\(a)/likes", viewer.token)),
                    try firstPage("/v1/videos/\(a)/comments", viewer.token).compactMap { child($0, "fromUser")?["id"] as? String },
                    ids(try firstPage("/v1/rallies/\(rallyId)/days/1/videos?sort=recent", viewer.token)),
                    jsonInt(try getObject("/v1/rallies/\(rallyId)", viewer.token)["videosCount"]),
                    jsonInt(try getObject("/v1/users/\(banned.id)", viewer.token)["videosCount"]),
                    try firstPage("/v1/feed/news", author.token).compactMap { child($0, "fromUser")?["id"] as? String })
        }
        let before = try seen()
        XCTAssertEqual(before.likes, 2)
        XCTAssertEqual(before.comments, 1)
        XCTAssertEqual(Set(before.likers), [banned.id, viewer.id])
        XCTAssertEqual(Set(before.day), [a, b])
        XCTAssertEqual(before.rallyCount, 2)
        XCTAssertEqual(before.bannedVideos, 1)
        XCTAssertTrue(before.news.contains(banned.id))

        let answered = assertSuccess(try client.request("POST", "/v1/moderation/users/\(banned.id)/ban", json: ["reason": "abuse"], token: moderator.token), 200)
        XCTAssertEqual(answered["id"] as? String, banned.id, "a ban answers the user")
        assertError(try client.me(banned.token), 401, "invalid_session", "the ban ended the session")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": banned.username, "password": banned.password]), 403, "account_banned")

        let during = try seen()
        XCTAssertEqual(during.likes, 1, "the banned user's like leaves likesCount")
        XCTAssertEqual(during.comments, 0, "and their comment commentsCount")
        XCTAssertEqual(during.likers, [viewer.id])
        XCTAssertEqual(during.commenters, [])
        XCTAssertEqual(during.day, [a], "their video leaves the rally day")
        XCTAssertEqual(during.rallyCount, 1)
        XCTAssertEqual(during.bannedVideos, 0)
        XCTAssertFalse(during.news.contains(banned.id), "their activities leave the news feed")
        assertError(try client.request("GET", "/v1/videos/\(b)", token: viewer.token), 404, "not_found", "their video is not found")
        XCTAssertEqual(try firstPage("/v1/users/\(banned.id)/videos", viewer.token).count, 0)
        XCTAssertEqual(try getObject("/v1/videos/\(b)", moderator.token)["id"] as? String, b, "moderators still see it")
        StoredCounters.assertAllExact(server, "while banned")

        // A moderator deletes the banned user's comment during the ban: counted once, not twice.
        let comment = try firstPage("/v1/videos/\(a)/comments", moderator.token).first?["id"] as? String ?? ""
        assertSuccess(try client.request("DELETE", "/v1/comments/\(comment)", json: ["reason": "abuse"], token: moderator.token), 204)
        StoredCounters.assertAllExact(server, "after deleting a banned user's comment")

        assertSuccess(try client.request("POST", "/v1/moderation/users/\(banned.id)/unban", json: ["reason": "appeal"], token: moderator.token), 200)
        let after = try seen()
        XCTAssertEqual(after.likes, 2, "the like counts again")
        XCTAssertEqual(after.comments, 0, "the deleted comment stays deleted")
        XCTAssertEqual(Set(after.day), [a, b])
        XCTAssertEqual(after.rallyCount, 2)
        XCTAssertEqual(after.bannedVideos, 1)
        XCTAssertEqual(try getObject("/v1/videos/\(b)", viewer.token)["likesCount"].flatMap(jsonInt), 1)
        _ = try client.login(banned.username, banned.password)
        StoredCounters.assertAllExact(server, "after the unban")
    }

    /// Likes racing bans and unbans of their authors: every counter ends exact.
    func testCountersStayExactWhenLikesRaceBans() throws {
        let admin = try admin()
        let owner = try client.signup()
        let video = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let likers = try (0..<6).map { _ in try client.signup() }
        let (tokens, userIDs, adminToken) = (likers.map(\.token), likers.map(\.id), admin.token)
        let outcomes = runConcurrently(port: server.port, 12) { index, client in
            let liker = index % tokens.count
            for round in 0..<5 {
                if index < tokens.count {
                    _ = try? client.request(round % 2 == 0 ? "PUT" : "DELETE", "/v1/videos/\(video)/like", token: tokens[liker])
                } else {
                    _ = try? client.request("POST", "/v1/moderation/users/\(userIDs[liker])/\(round % 2 == 0 ? "ban" : "unban")", json: ["reason": "race"], token: adminToken)
                }
            }
            return "done"
        }
        XCTAssertEqual(outcomes, Array(repeating: "done", count: 12))
        StoredCounters.assertAllExact(server, "after the race")
        for liker in likers {
            _ = try client.request("POST", "/v1/moderation/users/\(liker.id)/unban", json: [String: Any](), token: admin.token)
        }
        StoredCounters.assertAllExact(server, "after unbanning everyone")
    }
}
