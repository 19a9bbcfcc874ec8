import XCTest

/// GET /v1/feed/likes: the videos I liked, most recently liked first (the like's time, not the
/// video's); unliking, hiding and deleting take them out.
final class FeedLikesTests: ServerTestCase {
    func testMostRecentlyLikedFirstByTheLikesTime() throws {
        let me = try client.signup()
        let owners = [try client.signup(), try client.signup()]
        let rallyId = try createRally()["id"] as? String ?? ""
        // Created A, B, C (C is the newest video), liked in another order.
        let a = try feedVideo(owners[0], rallyId)
        let b = try feedVideo(owners[1], rallyId)
        let c = try feedVideo(owners[0], rallyId)
        let mine = try feedVideo(me, rallyId)
        XCTAssertEqual(try feedIds(.likes, me), [], "nothing liked yet")

        try feedLike(me, c); tick()
        try feedLike(me, a); tick()
        try feedLike(me, b); tick()
        XCTAssertEqual(try feedIds(.likes, me), [b, a, c], "most recently liked first, whatever the videos' ages")

        try feedUnlike(me, a); tick()
        XCTAssertEqual(try feedIds(.likes, me), [b, c], "an unliked video leaves at once")
        try feedLike(me, a); tick()
        XCTAssertEqual(try feedIds(.likes, me), [a, b, c], "liked again: the new like's time counts")

        try feedLike(me, mine); tick()
        let likes = try feedItems(.likes, me)
        XCTAssertEqual(ids(likes), [mine, a, b, c], "my own video, liked, is in my likes too")
        for video in likes {
            assertVideo(video)
            XCTAssertEqual(video["likedByMe"] as? Bool, true, "every video here has likedByMe true: \(video)")
        }

        let other = try client.signup()
        try feedLike(other, b)
        XCTAssertEqual(try feedIds(.likes, other), [b], "another user's likes are theirs alone")
        XCTAssertEqual(try feedIds(.likes, me), [mine, a, b, c], "and do not move mine")
        XCTAssertEqual(jsonInt(try feedItems(.likes, me).first { $0["id"] as? String == b }?["likesCount"]), 2)
    }

    func testHiddenDeletedAndLeaversVideosLeaveLikes() throws {
        let me = try client.signup()
        let owner = try client.signup()
        let leaver = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let kept = try feedVideo(owner, rallyId)
        let hiddenVideo = try feedVideo(owner, rallyId)
        let doomed = try feedVideo(owner, rallyId)
        let leaversVideo = try feedVideo(leaver, rallyId)
        for video in [kept, hiddenVideo, doomed, leaversVideo] {
            try feedLike(me, video)
            tick()
        }
        XCTAssertEqual(try feedIds(.likes, me), [leaversVideo, doomed, hiddenVideo, kept])

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenVideo)/hide", token: try moderator().token), 200, "hide")
        XCTAssertEqual(try feedIds(.likes, me), [leaversVideo, doomed, kept], "a hidden video leaves the liker's likes")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenVideo)/restore", token: try moderator().token), 200, "restore")
        XCTAssertEqual(try feedIds(.likes, me), [leaversVideo, doomed, hiddenVideo, kept], "restored: back where its like puts it")

        assertSuccess(try client.request("DELETE", "/v1/videos/\(doomed)", token: owner.token), 204, "delete a video")
        XCTAssertEqual(try feedIds(.likes, me), [leaversVideo, hiddenVideo, kept], "a deleted video leaves its likers' likes")

        try feedDeleteAccount(leaver)
        XCTAssertEqual(try feedIds(.likes, me), [hiddenVideo, kept], "a deleted account's videos leave everyone's likes")
    }

    func testLikingTwiceDoesNotDuplicate() throws {
        let me = try client.signup()
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let video = try feedVideo(owner, rallyId)
        try feedLike(me, video)
        try feedLike(me, video)
        XCTAssertEqual(try feedIds(.likes, me), [video], "a like is idempotent: one entry")
        try feedUnlike(me, video)
        try feedUnlike(me, video)
        XCTAssertEqual(try feedIds(.likes, me), [])
    }
}
