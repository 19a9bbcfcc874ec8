import XCTest

/// GET /v1/feed/home: the videos of the people I follow and my own, newest first (by the video's
/// createdAt); follows, unfollows, new videos, hiding and deletions show in the very next request.
final class FeedHomeTests: ServerTestCase {
    func testFollowedAndOwnVideosNewestFirstNeverStrangers() throws {
        let me = try client.signup()
        let driver = try client.signup()
        let codriver = try client.signup()
        let stranger = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        try feedFollow(me, driver)
        try feedFollow(me, codriver)
        try feedFollow(driver, stranger)  // Who the people I follow follow is none of my business.

        var expected: [String] = []
        for owner in [driver, stranger, me, codriver, stranger, driver, me] {
            let id = try feedVideo(owner, rallyId)
            if owner.id != stranger.id { expected.append(id) }
        }
        let home = try feedItems(.home, me)
        XCTAssertEqual(ids(home), expected.reversed(), "followed people's videos and mine, newest first, no stranger's")
        assertNewestFirst(home, "home")
        for video in home { assertVideo(video) }
        XCTAssertTrue(home.allSatisfy { $0["hidden"] as? Bool == false }, "nothing hidden here")

        let strangersHome = try feedIds(.home, stranger)
        XCTAssertEqual(strangersHome.count, 2, "the stranger follows nobody: only their own two videos")
        XCTAssertEqual(try feedIds(.home, codriver).count, 1, "the co-driver follows nobody: only their own video")
    }

    func testFollowUnfollowAndNewVideosShowAtOnce() throws {
        let me = try client.signup()
        let driver = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let old = [try feedVideo(driver, rallyId), try feedVideo(driver, rallyId)]
        let mine = try feedVideo(me, rallyId)
        XCTAssertEqual(try feedIds(.home, me), [mine], "before following: only my own video")

        try feedFollow(me, driver)
        XCTAssertEqual(try feedIds(.home, me), [mine, old[1], old[0]], "following shows the existing videos in the very next request")

        let fresh = try feedVideo(driver, rallyId)
        XCTAssertEqual(try feedIds(.home, me).first, fresh, "a new video by someone I follow is at the head at once")

        try feedUnfollow(me, driver)
        XCTAssertEqual(try feedIds(.home, me), [mine], "unfollowing removes their videos in the very next request")
        XCTAssertEqual(try feedIds(.home, driver), [fresh, old[1], old[0]], "the driver's own home is untouched")

        let afterUnfollow = try feedVideo(driver, rallyId)
        XCTAssertFalse(try feedIds(.home, me).contains(afterUnfollow), "new videos of someone I no longer follow stay out")

        try feedFollow(me, driver)
        XCTAssertEqual(try feedIds(.home, me), [afterUnfollow, fresh, mine, old[1], old[0]], "following again brings them all back, by createdAt")
        try feedFollow(me, driver)  // Idempotent: no duplicates.
        XCTAssertEqual(try feedIds(.home, me).count, 5, "following twice does not duplicate videos")
    }

    func testHiddenVideoLeavesHomeExceptForOwnerAndStaff() throws {
        let owner = try client.signup()
        let follower = try client.signup()
        let mod = try moderator()
        let adm = try admin()
        let rallyId = try createRally()["id"] as? String ?? ""
        for account in [follower, mod, adm] { try feedFollow(account, owner) }
        let kept = try feedVideo(owner, rallyId)
        let hiddenId = try feedVideo(owner, rallyId)
        XCTAssertEqual(try feedIds(.home, follower), [hiddenId, kept])

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenId)/hide", token: mod.token), 200, "hide")
        XCTAssertEqual(try feedIds(.home, follower), [kept], "a hidden video leaves a follower's home at once")
        for (who, account) in [("the owner", owner), ("a moderator", mod), ("an admin", adm)] {
            let home = try feedItems(.home, account)
            let video = home.first { $0["id"] as? String == hiddenId }
            XCTAssertNotNil(video, "\(who) still sees the hidden video in home")
            XCTAssertEqual(video?["hidden"] as? Bool, true, "\(who) sees it with hidden: true")
            XCTAssertTrue(ids(home).contains(kept))
        }

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hiddenId)/restore", token: adm.token), 200, "restore")
        XCTAssertEqual(try feedIds(.home, follower), [hiddenId, kept], "restored: back in its place")
    }

    func testDeletedVideosAndAccountsLeaveHome() throws {
        let leaver = try client.signup()
        let stayer = try client.signup()
        let follower = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        try feedFollow(follower, leaver)
        try feedFollow(follower, stayer)
        let leaversVideos = [try feedVideo(leaver, rallyId), try feedVideo(leaver, rallyId)]
        let doomed = try feedVideo(stayer, rallyId)
        let stayersVideo = try feedVideo(stayer, rallyId)
        XCTAssertEqual(try feedIds(.home, follower), [stayersVideo, doomed, leaversVideos[1], leaversVideos[0]])

        assertSuccess(try client.request("DELETE", "/v1/videos/\(doomed)", token: stayer.token), 204, "delete a video")
        XCTAssertEqual(try feedIds(.home, follower), [stayersVideo, leaversVideos[1], leaversVideos[0]], "a deleted video leaves followers' home")
        XCTAssertEqual(try feedIds(.home, stayer), [stayersVideo], "and its owner's")

        let moderatorsVideo = try feedVideo(stayer, rallyId)
        assertSuccess(try client.request("DELETE", "/v1/videos/\(moderatorsVideo)", token: try moderator().token), 204, "a moderator deletes a video")
        XCTAssertFalse(try feedIds(.home, follower).contains(moderatorsVideo), "a video deleted by a moderator leaves home too")

        try feedDeleteAccount(leaver)
        XCTAssertEqual(try feedIds(.home, follower), [stayersVideo], "a deleted account's videos leave everyone's home")
    }
}
