import XCTest

/// GET /v1/feed/likes: the videos I liked, most recently liked first (the like's time, not the
/// video's); unliking, hiding and deleting take them out.
final class FeedLikesTests: ServerTestCase {
    /// The likes `liker` made, as `watcher` (who follows them) sees them in the following feed
    /// once `count` are there: each like's createdAt and id, by video id. The likes feed is
    /// keyed by the like's (createdAt, id) but shows the videos; this is where the likes show.
    private func likePositions(by liker: Account, seenBy watcher: Account, count: Int) throws -> [String: (createdAt: String, id: String)] {
        let items = try feedItems(.following, watcher, once: { $0.count >= count })
        XCTAssertEqual(items.count, count, "\(watcher.username) sees \(liker.username)'s \(count) likes")
        return positions(items) { child($0, "video")?["id"] as? String ?? "-" }
    }

    func testMostRecentlyLikedFirstByTheLikesTime() throws {
        let me = try client.signup()
        let watcher = try client.signup()
        try feedFollow(watcher, me)
        let owners = [try client.signup(), try client.signup()]
        let rallyId = try createRally()["id"] as? String ?? ""
        // Created A, B, C (C is the newest video), liked in another order.
        let a = try feedVideo(owners[0], rallyId)
        let b = try feedVideo(owners[1], rallyId)
        let c = try feedVideo(owners[0], rallyId)
        let mine = try feedVideo(me, rallyId)
        XCTAssertEqual(try feedIds(.likes, me), [], "nothing liked yet")

        try feedLike(me, c)
        try feedLike(me, a)
        try feedLike(me, b)
        var likes = try likePositions(by: me, seenBy: watcher, count: 3)
        let liked = newestFirst([c, a, b], tie: .id) { likes[$0] }
        XCTAssertEqual(try feedIds(.likes, me), liked, "most recently liked first, whatever the videos' ages")

        try feedUnlike(me, a)
        XCTAssertEqual(try feedIds(.likes, me), liked.filter { $0 != a }, "an unliked video leaves at once")
        try feedLike(me, a)
        likes = try likePositions(by: me, seenBy: watcher, count: 3)
        let likedAgain = newestFirst([c, b, a], tie: .id) { likes[$0] }
        XCTAssertEqual(try feedIds(.likes, me), likedAgain, "liked again: the new like's time counts")

        try feedLike(me, mine)
        likes = try likePositions(by: me, seenBy: watcher, count: 4)
        let withMine = newestFirst([c, b, a, mine], tie: .id) { likes[$0] }
        let items = try feedItems(.likes, me)
        XCTAssertEqual(ids(items), withMine, "my own video, liked, is in my likes too")
        XCTAssertEqual(Set(ids(items)), [mine, a, b, c])
        for video in items {
            assertVideo(video)
            XCTAssertEqual(video["likedByMe"] as? Bool, true, "every video here has likedByMe true: \(video)")
        }

        let other = try client.signup()
        try feedLike(other, b)
        XCTAssertEqual(try feedIds(.likes, other), [b], "another user's likes are theirs alone")
        XCTAssertEqual(try feedIds(.likes, me), withMine, "and do not move mine")
        XCTAssertEqual(jsonInt(try feedItems(.likes, me).first { $0["id"] as? String == b }?["likesCount"]), 2)
    }

    func testHiddenDeletedAndLeaversVideosLeaveLikes() throws {
        let me = try client.signup()
        let watcher = try client.signup()
        try feedFollow(watcher, me)
        let owner = try client.signup()
        let leaver = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let kept = try feedVideo(owner, rallyId)
        let hiddenVideo = try feedVideo(owner, rallyId)
        let doomed = try feedVideo(owner, rallyId)
        let leaversVideo = try feedVideo(leaver, rallyId)
        for video in [kept, hiddenVideo, doomed, leaversVideo] {
            try feedLike(me, video)
        }
        let likes = try likePositions(by: me, seenBy: watcher, count: 4)
        let liked = newestFirst([kept, hiddenVideo, doomed, leaversVideo], tie: .id) { likes[$0] }
        XCTAssertEqual(try feedIds(.likes, me), liked)

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenVideo)/hide", token: try moderator().token), 200, "hide")
        XCTAssertEqual(try feedIds(.likes, me), liked.filter { $0 != hiddenVideo }, "a hidden video leaves the liker's likes")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenVideo)/restore", token: try moderator().token), 200, "restore")
        XCTAssertEqual(try feedIds(.likes, me), liked, "restored: back where its like puts it")

        assertSuccess(try client.request("DELETE", "/v1/videos/\(doomed)", token: owner.token), 204, "delete a video")
        XCTAssertEqual(try feedIds(.likes, me), liked.filter { $0 != doomed }, "a deleted video leaves its likers' likes")

        try feedDeleteAccount(leaver)
        XCTAssertEqual(try feedIds(.likes, me), liked.filter { ![doomed, leaversVideo].contains($0) }, "a deleted account's videos leave everyone's likes")
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
