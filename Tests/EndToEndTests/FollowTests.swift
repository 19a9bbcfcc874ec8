import XCTest

/// Follows, the lists that come from them, and isFollowing on every user object.
final class FollowTests: ServerTestCase {
    private func me(_ account: Account) throws -> [String: Any] { try getObject("/v1/users/me", account.token) }

    func testFollowAndUnfollowAreIdempotent() throws {
        let fan = try client.signup()
        let star = try client.signup()
        let followed = assertSuccess(try client.request("PUT", "/v1/users/\(star.id)/follow", token: fan.token), 200)
        assertPublicUser(followed, username: star.username)
        XCTAssertEqual(followed["id"] as? String, star.id)
        XCTAssertEqual(followed["isFollowing"] as? Bool, true)
        XCTAssertEqual(jsonInt(followed["followersCount"]), 1)
        let again = assertSuccess(try client.request("PUT", "/v1/users/\(star.id)/follow", token: fan.token), 200, "a second PUT")
        XCTAssertEqual(jsonInt(again["followersCount"]), 1, "idempotent")
        XCTAssertEqual(jsonInt(try me(fan)["followingCount"]), 1, "the caller's followingCount moves too")
        XCTAssertEqual(jsonInt(try me(star)["followersCount"]), 1)
        XCTAssertEqual(try getObject("/v1/users/\(star.id)", fan.token)["isFollowing"] as? Bool, true)
        XCTAssertEqual(try getObject("/v1/users/\(fan.id)", star.token)["isFollowing"] as? Bool, false, "following is one-way")

        let unfollowed = assertSuccess(try client.request("DELETE", "/v1/users/\(star.id)/follow", token: fan.token), 200)
        XCTAssertEqual(unfollowed["isFollowing"] as? Bool, false)
        XCTAssertEqual(jsonInt(unfollowed["followersCount"]), 0)
        let twice = assertSuccess(try client.request("DELETE", "/v1/users/\(star.id)/follow", token: fan.token), 200, "not following")
        XCTAssertEqual(twice["isFollowing"] as? Bool, false)
        XCTAssertEqual(jsonInt(twice["followersCount"]), 0, "unchanged")
        XCTAssertEqual(jsonInt(try me(fan)["followingCount"]), 0)
        StoredCounters.assertAllExact(server)
    }

    func testSelfUnknownAndNoSession() throws {
        let account = try client.signup()
        assertError(try client.request("PUT", "/v1/users/\(account.id)/follow", token: account.token), 400, "validation_failed", "following oneself")
        XCTAssertEqual(jsonInt(try me(account)["followingCount"]), 0)
        assertError(try client.request("PUT", "/v1/users/no-such-user/follow", token: account.token), 404, "not_found")
        assertError(try client.request("DELETE", "/v1/users/no-such-user/follow", token: account.token), 404, "not_found")
        assertError(try client.request("GET", "/v1/users/no-such-user/followers", token: account.token), 404, "not_found")
        assertError(try client.request("GET", "/v1/users/no-such-user/following", token: account.token), 404, "not_found")
        assertError(try client.request("GET", "/v1/users/no-such-user/videos", token: account.token), 404, "not_found")
        assertError(try client.request("PUT", "/v1/users/\(account.id)/follow"), 401, "unauthorized")
    }

    func testFollowersAndFollowingAreNewestFirstWithTheCallersIsFollowing() throws {
        let star = try client.signup()
        let viewer = try client.signup()
        var fans: [Account] = []
        for _ in 0..<4 {
            let fan = try client.signup()
            assertSuccess(try client.request("PUT", "/v1/users/\(star.id)/follow", token: fan.token), 200)
            fans.append(fan)
        }
        assertSuccess(try client.request("PUT", "/v1/users/\(fans[2].id)/follow", token: viewer.token), 200)
        // Unfollow and follow again: by when the follow happened, fans[0] is now the newest.
        assertSuccess(try client.request("DELETE", "/v1/users/\(star.id)/follow", token: fans[0].token), 200)
        assertSuccess(try client.request("PUT", "/v1/users/\(star.id)/follow", token: fans[0].token), 200)

        let followers = try firstPage("/v1/users/\(star.id)/followers", viewer.token)
        // The lists show users, keyed by the follow's (createdAt, id): the follows themselves, with
        // those, are in the news of the one followed.
        let starsNews = positions(try feedItems(.news, star))
        let followedStar = newestFirst([fans[1], fans[2], fans[3], fans[0]], tie: .id) { starsNews[activityKey("follow", from: $0, to: star)] }
        XCTAssertEqual(ids(followers), followedStar.map(\.id), "newest follow first")
        for follower in followers {
            assertPublicUser(follower)
            XCTAssertEqual(follower["isFollowing"] as? Bool, follower["id"] as? String == fans[2].id, "isFollowing is the caller's: \(follower)")
        }
        let paged = try allPages("/v1/users/\(star.id)/followers", viewer.token, limit: 3)
        XCTAssertEqual(paged.sizes, [3, 1])
        XCTAssertEqual(ids(paged.items), ids(followers))

        let others = [try client.signup(), try client.signup(), star]
        for other in others {
            assertSuccess(try client.request("PUT", "/v1/users/\(other.id)/follow", token: fans[1].token), 200)
        }
        let following = try firstPage("/v1/users/\(fans[1].id)/following", viewer.token)
        // The follow of star as the star's news showed it before the second PUT.
        var follows = starsNews
        for other in others.prefix(2) { follows.merge(positions(try feedItems(.news, other))) { first, _ in first } }
        let followedByFan = newestFirst([star, others[0], others[1]], tie: .id) { follows[activityKey("follow", from: fans[1], to: $0)] }
        XCTAssertEqual(ids(following), followedByFan.map(\.id), "newest follow first (the follow of star stays where it was)")
        XCTAssertTrue(following.allSatisfy { $0["isFollowing"] as? Bool == false }, "the viewer follows none of them")
        XCTAssertEqual(jsonInt(try me(fans[1])["followingCount"]), 3)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/\(star.id)", viewer.token)["followersCount"]), 4)
        StoredCounters.assertAllExact(server)
    }

    func testEveryUserObjectCarriesIsFollowing() throws {
        let owner = try client.signup()
        let viewer = try client.signup()
        let commenter = try client.signup()
        assertSuccess(try client.request("PUT", "/v1/users/\(owner.id)/follow", token: viewer.token), 200)
        let (rally, video) = try rallyAndVideo(owner: owner)
        let id = video["id"] as? String ?? ""
        assertSuccess(try client.request("POST", "/v1/videos/\(id)/comments", json: ["content": "Great"], token: commenter.token), 201)
        assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: commenter.token), 200)

        XCTAssertEqual(child(try getObject("/v1/videos/\(id)", viewer.token), "owner")?["isFollowing"] as? Bool, true, "GET video: owner")
        let videos = try firstPage("/v1/users/\(owner.id)/videos", viewer.token)
        XCTAssertEqual(ids(videos), [id])
        XCTAssertEqual(child(videos.first, "owner")?["isFollowing"] as? Bool, true, "a user's videos: owner")
        let day = try firstPage("/v1/rallies/\(rally["id"] as? String ?? "")/days/1/videos?sort=recent", viewer.token)
        XCTAssertEqual(child(day.first, "owner")?["isFollowing"] as? Bool, true, "a rally day: owner")
        let comments = try firstPage("/v1/videos/\(id)/comments", viewer.token)
        XCTAssertEqual(child(comments.first, "fromUser")?["isFollowing"] as? Bool, false, "comment fromUser")
        XCTAssertEqual(child(comments.first, "toUser")?["isFollowing"] as? Bool, true, "comment toUser")
        XCTAssertEqual(try firstPage("/v1/videos/\(id)/likes", viewer.token).first?["isFollowing"] as? Bool, false, "a liker")
        let found = try firstPage("/v1/search/users?q=\(owner.username)", viewer.token)
        XCTAssertEqual(found.first { $0["id"] as? String == owner.id }?["isFollowing"] as? Bool, true, "search results")
    }

    func testUserVideosAreNewestFirst() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        var made: [String] = []
        for day in [1, 3, 2, 1] {
            made.append(try postVideo(owner, rallyId: rallyId, day: day)["id"] as? String ?? "")
        }
        let listed = try firstPage("/v1/users/\(owner.id)/videos", owner.token)
        let listedPositions = positions(listed) { $0["id"] as? String ?? "" }
        XCTAssertEqual(ids(listed), newestFirst(made, tie: .id) { listedPositions[$0] }, "newest first (by createdAt, then id), whatever the day")
        for video in listed { assertVideo(video) }
    }
}
