import XCTest

/// Likes: idempotent PUT and DELETE answering the video, and the list of likers.
final class LikeTests: ServerTestCase {
    func testLikeAndUnlikeAreIdempotent() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""

        let liked = assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: fan.token), 200)
        assertVideo(liked)
        XCTAssertEqual(liked["likedByMe"] as? Bool, true)
        XCTAssertEqual(jsonInt(liked["likesCount"]), 1)
        let again = assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: fan.token), 200, "a second PUT")
        XCTAssertEqual(again["likedByMe"] as? Bool, true)
        XCTAssertEqual(jsonInt(again["likesCount"]), 1, "a second PUT changes nothing")

        XCTAssertEqual(try getObject("/v1/videos/\(id)", fan.token)["likedByMe"] as? Bool, true)
        let asOwner = try getObject("/v1/videos/\(id)", owner.token)
        XCTAssertEqual(asOwner["likedByMe"] as? Bool, false, "likedByMe is the caller's")
        XCTAssertEqual(jsonInt(asOwner["likesCount"]), 1)
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "likes_count", id: id), 1)
        XCTAssertEqual(try StoredCounters.activities(server, type: 1, videoId: id), 1, "one like row")

        let unliked = assertSuccess(try client.request("DELETE", "/v1/videos/\(id)/like", token: fan.token), 200)
        assertVideo(unliked)
        XCTAssertEqual(unliked["likedByMe"] as? Bool, false)
        XCTAssertEqual(jsonInt(unliked["likesCount"]), 0)
        let twice = assertSuccess(try client.request("DELETE", "/v1/videos/\(id)/like", token: fan.token), 200, "DELETE of a like that is gone")
        XCTAssertEqual(jsonInt(twice["likesCount"]), 0, "unchanged")
        let never = assertSuccess(try client.request("DELETE", "/v1/videos/\(id)/like", token: try client.signup().token), 200, "DELETE of a like never made")
        XCTAssertEqual(never["likedByMe"] as? Bool, false)
        XCTAssertEqual(jsonInt(never["likesCount"]), 0)
        XCTAssertEqual(try StoredCounters.activities(server, type: 1, videoId: id), 0)
        StoredCounters.assertAllExact(server)
    }

    func testLikesListIsMostRecentFirstWithIsFollowing() throws {
        let owner = try client.signup()
        let viewer = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        var fans: [Account] = []
        for _ in 0..<3 {
            let fan = try client.signup()
            assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: fan.token), 200)
            fans.append(fan)
        }
        assertSuccess(try client.request("PUT", "/v1/users/\(fans[1].id)/follow", token: viewer.token), 200)
        // A like removed and made again counts as the most recent.
        assertSuccess(try client.request("DELETE", "/v1/videos/\(id)/like", token: fans[0].token), 200)
        assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: fans[0].token), 200)

        let likers = try firstPage("/v1/videos/\(id)/likes", viewer.token)
        // The list shows users, keyed by the like's (createdAt, id): the likes themselves, with
        // those, are in the owner's news.
        let ownersNews = positions(try feedItems(.news, owner))
        let liked = newestFirst([fans[1], fans[2], fans[0]], tie: .id) { ownersNews[activityKey("like", from: $0, to: owner, video: id)] }
        XCTAssertEqual(ids(likers), liked.map(\.id), "most recent like first")
        for liker in likers {
            assertPublicUser(liker)
            XCTAssertNil(liker["email"], "likers are public users")
            XCTAssertTrue(isJSONBool(liker["isFollowing"]), "each liker carries isFollowing: \(liker)")
            XCTAssertEqual(liker["isFollowing"] as? Bool, liker["id"] as? String == fans[1].id, "isFollowing is the caller's")
        }
        let paged = try allPages("/v1/videos/\(id)/likes", viewer.token, limit: 2)
        XCTAssertEqual(paged.sizes, [2, 1])
        XCTAssertEqual(ids(paged.items), ids(likers))
    }

    func testUnknownVideoAndNoSession() throws {
        let fan = try client.signup()
        assertError(try client.request("PUT", "/v1/videos/no-such-video/like", token: fan.token), 404, "not_found")
        assertError(try client.request("DELETE", "/v1/videos/no-such-video/like", token: fan.token), 404, "not_found")
        assertError(try client.request("GET", "/v1/videos/no-such-video/likes", token: fan.token), 404, "not_found")
        let id = try rallyAndVideo(owner: fan).video["id"] as? String ?? ""
        assertError(try client.request("PUT", "/v1/videos/\(id)/like"), 401, "unauthorized")
    }
}
