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
                    // The profile is the moderator's to read while the ban lasts (404 to others), with the count everyone gets.
                    jsonInt(try getObject("/v1/users/\(banned.id)", moderator.token)["videosCount"]),
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
        assertError(try client.request("GET", "/v1/users/\(banned.id)/videos", token: viewer.token), 404, "not_found", "their profile's lists are not found")
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

    /// API.md "Visibility": a banned account's profile and lists are 404 for everyone but
    /// moderators and admins, and following it is 404; the unban brings them all back.
    func testABannedAccountsProfileAndListsAreNotFoundAndItCannotBeFollowed() throws {
        let moderator = try moderator(), admin = try admin()
        let viewer = try client.signup(), follower = try client.signup()
        let banned = try client.signup()
        _ = try rallyAndVideo(owner: banned)
        assertSuccess(try client.request("PUT", "/v1/users/\(banned.id)/follow", token: follower.token), 200)
        assertSuccess(try client.request("PUT", "/v1/users/\(viewer.id)/follow", token: banned.token), 200)
        let paths = ["/v1/users/\(banned.id)", "/v1/users/\(banned.username.uppercased())",
                     "/v1/users/\(banned.id)/videos", "/v1/users/\(banned.id)/followers", "/v1/users/\(banned.id)/following"]
        for path in paths { assertSuccess(try client.request("GET", path, token: viewer.token), 200, "\(path) before the ban") }

        assertSuccess(try client.request("POST", "/v1/moderation/users/\(banned.id)/ban", json: ["reason": "abuse"], token: moderator.token), 200)
        for path in paths {
            assertError(try client.request("GET", path, token: viewer.token), 404, "not_found", "\(path) while banned, as a user")
            assertError(try client.request("GET", path, token: follower.token), 404, "not_found", "\(path) while banned, as a follower")
            assertSuccess(try client.request("GET", path, token: moderator.token), 200, "\(path) while banned, as a moderator")
            assertSuccess(try client.request("GET", path, token: admin.token), 200, "\(path) while banned, as an admin")
        }
        XCTAssertEqual(try getObject("/v1/users/\(banned.id)", moderator.token)["id"] as? String, banned.id)
        assertError(try client.request("PUT", "/v1/users/\(banned.id)/follow", token: viewer.token), 404, "not_found", "following a banned account")
        assertError(try client.request("PUT", "/v1/users/\(banned.username)/follow", token: viewer.token), 404, "not_found", "by username too")
        assertError(try client.request("DELETE", "/v1/users/\(banned.id)/follow", token: follower.token), 404, "not_found",
                    "unfollowing: the account is not there (the answer would be its profile)")
        XCTAssertEqual(try StoredCounters.stored(server, "users", "followers_count", id: banned.id), 1, "the refused follow and unfollow changed nothing")

        assertSuccess(try client.request("POST", "/v1/moderation/users/\(banned.id)/unban", json: ["reason": "appeal"], token: moderator.token), 200)
        for path in paths { assertSuccess(try client.request("GET", path, token: viewer.token), 200, "\(path) after the unban") }
        let profile = try getObject("/v1/users/\(banned.id)", follower.token)
        XCTAssertEqual(profile["isFollowing"] as? Bool, true, "the follow made before the ban is still there")
        XCTAssertEqual(try getObject("/v1/users/\(banned.id)", viewer.token)["isFollowing"] as? Bool, false)
        XCTAssertEqual(assertSuccess(try client.request("PUT", "/v1/users/\(banned.id)/follow", token: viewer.token), 200)["isFollowing"] as? Bool, true)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/\(banned.id)", viewer.token)["followersCount"]), 2)
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
