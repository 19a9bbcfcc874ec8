import TestSupport
import XCTest

/// GET /v1/feed/following: the likes, comments and follows made by the people I follow, newest
/// first; never flags, never mine, nothing about a video hidden for me. Follows, unfollows and
/// deletions change it in the very next request; new activities arrive through the outbox
/// worker, within its poll interval (the tests wait for them, up to 10 s).
final class FeedFollowingTests: ServerTestCase {
    func testActivitiesOfPeopleIFollowNewestFirst() throws {
        let me = try client.signup()
        let friend = try client.signup()
        let stranger = try client.signup()
        let creator = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let video = try feedVideo(creator, rallyId)
        let other = try feedVideo(creator, rallyId)
        let myVideo = try feedVideo(me, rallyId)
        try feedFollow(me, friend)                             // mine: never in my following feed

        try feedLike(friend, video)
        let commentId = try feedComment(friend, video, "What a jump")
        try feedFollow(friend, creator)
        try feedFlag(friend, other)                            // a flag: never shown
        try feedLike(friend, myVideo)                          // about me, but made by someone I follow
        try feedLike(stranger, video)                          // someone I do not follow
        try feedComment(stranger, video)
        try feedFollow(stranger, creator)
        try feedLike(me, video)                                // mine
        try feedComment(me, video)                             // mine

        let following = try feedItems(.following, me, once: { $0.count >= 4 })
        // In the order made; the feed is newest first by (createdAt, seq): equal times, the later write first.
        let friendsActivities = [
            activityKey("like", from: friend, to: creator, video: video),
            activityKey("comment", from: friend, to: creator, video: video),
            activityKey("follow", from: friend, to: creator),
            activityKey("like", from: friend, to: me, video: myVideo),
        ]
        let followingPositions = positions(following)
        let expected = newestFirst(friendsActivities, tie: .made) { followingPositions[$0] }
        XCTAssertEqual(following.map(activityKey), expected,
                       "the likes, comments and follows of the people I follow, newest first; no flag, nothing of mine or of strangers")
        assertNewestFirst(following, "following")
        for activity in following { assertActivity(activity, type: activity["type"] as? String ?? "?") }
        XCTAssertEqual(Set(following.map { $0["type"] as? String ?? "?" }), ["like", "comment", "follow"])
        let comment = following.first { $0["type"] as? String == "comment" }
        XCTAssertEqual(comment?["id"] as? String, commentId)
        XCTAssertEqual(comment?["content"] as? String, "What a jump")
        XCTAssertFalse(following.contains { $0["type"] as? String == "inappropriate" })

        try waitForFanOut()  // so nothing can still be on its way to the feeds read below
        XCTAssertEqual(try feedKeys(.following, friend), [], "the friend follows only the creator, who did nothing")
        XCTAssertEqual(try feedKeys(.following, creator), [], "the creator follows nobody")
    }

    func testFollowingShowsRecentActivitiesAtOnceAndUnfollowingRemovesThem() throws {
        let me = try client.signup()
        let friend = try client.signup()
        let creator = try client.signup()
        let witness = try client.signup()                      // follows the friend throughout
        try feedFollow(witness, friend)
        let rallyId = try createRally()["id"] as? String ?? ""
        let video = try feedVideo(creator, rallyId)
        try feedLike(friend, video)
        try feedComment(friend, video)
        try feedFollow(friend, creator)
        XCTAssertEqual(try feedKeys(.following, me), [])

        try feedFollow(me, friend)
        // Newest first by (createdAt, seq): made in the same millisecond, the later write is still first.
        let expected = [
            activityKey("follow", from: friend, to: creator),
            activityKey("comment", from: friend, to: creator, video: video),
            activityKey("like", from: friend, to: creator, video: video),
        ]
        XCTAssertEqual(try feedKeys(.following, me), expected, "following shows their recent activities in the very next request")

        let second = try feedVideo(creator, rallyId)
        try feedLike(friend, second)
        let newLike = activityKey("like", from: friend, to: creator, video: second)
        XCTAssertEqual(try feedItems(.following, me, once: { $0.first.map(activityKey) == newLike }).first.map(activityKey), newLike,
                       "a new like by someone I follow reaches the head")

        try feedUnfollow(me, friend)
        XCTAssertEqual(try feedKeys(.following, me), [], "unfollowing removes their activities in the very next request")
        let lateComment = try feedComment(friend, second)
        XCTAssertTrue(try waitUntil { try feedIds(.following, witness).contains(lateComment) }, "the worker fanned the comment out")
        XCTAssertEqual(try feedKeys(.following, me), [], "activities of someone I no longer follow stay out")

        try feedFollow(me, friend)
        XCTAssertEqual(try feedItems(.following, me).count, 5, "following again brings them all back")
    }

    func testUndoneAndDeletedActivitiesLeave() throws {
        let me = try client.signup()
        let friend = try client.signup()
        let leaver = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let kept = try feedVideo(leaver, rallyId)
        let doomed = try feedVideo(friend, rallyId)
        let survivor = try client.signup()
        let survivorsVideo = try feedVideo(survivor, rallyId)
        try feedFollow(me, friend)
        try feedFollow(me, leaver)

        try feedLike(friend, survivorsVideo)
        let deletedComment = try feedComment(friend, survivorsVideo, "deleted later")
        try feedLike(leaver, doomed)                           // about a video that will be deleted
        try feedComment(leaver, doomed)
        try feedLike(friend, kept)                             // about the leaver's video
        try feedFollow(friend, survivor)
        try feedFollow(leaver, survivor)                       // by the leaver
        XCTAssertEqual(try feedItems(.following, me, once: { $0.count >= 7 }).count, 7)

        assertSuccess(try client.request("DELETE", "/v1/comments/\(deletedComment)", token: friend.token), 204, "delete a comment")
        XCTAssertFalse(try feedIds(.following, me).contains(deletedComment), "a deleted comment leaves following")
        XCTAssertEqual(try feedItems(.following, me).count, 6)

        assertSuccess(try client.request("DELETE", "/v1/videos/\(doomed)", token: friend.token), 204, "delete a video")
        XCTAssertFalse(try feedItems(.following, me).contains { child($0, "video")?["id"] as? String == doomed },
                       "activities about a deleted video leave following")
        XCTAssertEqual(try feedItems(.following, me).count, 4)

        try feedUnfollow(friend, survivor)
        XCTAssertFalse(try feedKeys(.following, me).contains(activityKey("follow", from: friend, to: survivor)), "an undone follow leaves")
        try feedUnlike(friend, survivorsVideo)
        XCTAssertFalse(try feedKeys(.following, me).contains(activityKey("like", from: friend, to: survivor, video: survivorsVideo)), "an undone like leaves")

        try feedDeleteAccount(leaver)
        XCTAssertEqual(try feedKeys(.following, me), [],
                       "a deleted account's activities, and others' activities about its videos, leave following")
    }

    func testActivitiesAboutAHiddenVideoLeaveExceptForStaff() throws {
        let me = try client.signup()
        let friend = try client.signup()
        let creator = try client.signup()
        let mod = try moderator()
        let rallyId = try createRally()["id"] as? String ?? ""
        let hiddenVideo = try feedVideo(creator, rallyId)
        let visible = try feedVideo(creator, rallyId)
        try feedFollow(me, friend)
        try feedFollow(mod, friend)
        try feedFollow(creator, friend)
        try feedLike(friend, hiddenVideo)
        try feedComment(friend, hiddenVideo)
        try feedLike(friend, visible)
        XCTAssertEqual(try feedItems(.following, me, once: { $0.count >= 3 }).count, 3)

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenVideo)/hide", token: mod.token), 200, "hide")
        XCTAssertEqual(try feedKeys(.following, me), [activityKey("like", from: friend, to: creator, video: visible)],
                       "activities about a video hidden for me leave my following feed")
        XCTAssertEqual(try feedItems(.following, mod, once: { $0.count >= 3 }).count, 3, "a moderator still sees them")
        XCTAssertEqual(try feedItems(.following, creator, once: { $0.count >= 3 }).count, 3, "the video's owner still sees them")

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenVideo)/restore", token: mod.token), 200, "restore")
        XCTAssertEqual(try feedItems(.following, me).count, 3, "restored: they come back")
    }
}
