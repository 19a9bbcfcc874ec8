import XCTest

/// GET /v1/feed/news: activities aimed at me (toUser is me) made by others — likes and comments on
/// my videos, follows of me — newest first; never flags, never my own activities.
final class FeedNewsTests: ServerTestCase {
    func testLikesCommentsAndFollowsOfMeNewestFirst() throws {
        let me = try client.signup()
        let liker = try client.signup()
        let commenter = try client.signup()
        let fan = try client.signup()
        let flagger = try client.signup()
        let other = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let myVideo = try feedVideo(me, rallyId)
        let othersVideo = try feedVideo(other, rallyId)

        try feedLike(liker, myVideo); tick()
        let commentId = try feedComment(commenter, myVideo, "Great line"); tick()
        try feedFollow(fan, me); tick()
        try feedFlag(flagger, myVideo); tick()                 // a flag: never in news
        try feedLike(me, myVideo); tick()                      // my own: never in news
        try feedComment(me, myVideo, "Thanks all"); tick()     // my own: never in news
        try feedLike(liker, othersVideo); tick()               // aimed at someone else
        try feedComment(commenter, othersVideo); tick()        // aimed at someone else
        try feedFollow(fan, other); tick()                     // aimed at someone else
        try feedFollow(me, fan); tick()                        // mine, aimed at the fan

        let news = try feedItems(.news, me)
        XCTAssertEqual(news.map(activityKey), [
            activityKey("follow", from: fan, to: me),
            activityKey("comment", from: commenter, to: me, video: myVideo),
            activityKey("like", from: liker, to: me, video: myVideo),
        ], "others' likes, comments and follows aimed at me, newest first; no flag, nothing of mine")
        assertNewestFirst(news, "news")
        let types = ["follow", "comment", "like"]
        for (activity, type) in zip(news, types) { assertActivity(activity, type: type) }
        XCTAssertEqual(news.dropFirst().first?["id"] as? String, commentId, "the comment's Activity id is the one POST answered")
        XCTAssertEqual(news.dropFirst().first?["content"] as? String, "Great line")
        XCTAssertTrue(news.first?["video"] is NSNull, "a follow has video null: \(news.first ?? [:])")
        XCTAssertEqual(child(news.last, "video")?["id"] as? String, myVideo, "a like carries its Video")
        XCTAssertFalse(news.contains { $0["type"] as? String == "inappropriate" }, "never a flag")

        XCTAssertEqual(try feedKeys(.news, fan), [activityKey("follow", from: me, to: fan)], "the fan's news: my follow of them")
        XCTAssertEqual(try feedKeys(.news, flagger), [], "a flagger's news is empty")
        XCTAssertEqual(try feedKeys(.news, other), [
            activityKey("follow", from: fan, to: other),
            activityKey("comment", from: commenter, to: other, video: othersVideo),
            activityKey("like", from: liker, to: other, video: othersVideo),
        ])
    }

    func testNewActivitiesArriveAtOnceAndUndoneOnesLeave() throws {
        let me = try client.signup()
        let fan = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let myVideo = try feedVideo(me, rallyId)
        XCTAssertEqual(try feedKeys(.news, me), [])

        try feedLike(fan, myVideo); tick()
        XCTAssertEqual(try feedKeys(.news, me), [activityKey("like", from: fan, to: me, video: myVideo)], "a like shows at once")
        try feedFollow(fan, me); tick()
        XCTAssertEqual(try feedKeys(.news, me).first, activityKey("follow", from: fan, to: me), "a follow shows at once, at the head")

        try feedUnlike(fan, myVideo)
        XCTAssertEqual(try feedKeys(.news, me), [activityKey("follow", from: fan, to: me)], "an undone like leaves news")
        try feedUnfollow(fan, me)
        XCTAssertEqual(try feedKeys(.news, me), [], "an undone follow leaves news")
    }

    func testDeletedCommentsVideosAndAccountsLeaveNews() throws {
        let me = try client.signup()
        let fan = try client.signup()
        let leaver = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let kept = try feedVideo(me, rallyId)
        let doomed = try feedVideo(me, rallyId)

        let keptComment = try feedComment(fan, kept, "stays"); tick()
        let deletedComment = try feedComment(fan, kept, "goes"); tick()
        let ownerDeletedComment = try feedComment(fan, kept, "goes too"); tick()
        try feedLike(fan, doomed); tick()
        try feedComment(fan, doomed, "on the doomed one"); tick()
        try feedLike(leaver, kept); tick()
        try feedComment(leaver, kept, "from the leaver"); tick()
        try feedFollow(leaver, me); tick()
        XCTAssertEqual(try feedItems(.news, me).count, 8)

        assertSuccess(try client.request("DELETE", "/v1/comments/\(deletedComment)", token: fan.token), 204, "the author deletes a comment")
        assertSuccess(try client.request("DELETE", "/v1/comments/\(ownerDeletedComment)", token: me.token), 204, "the video owner deletes a comment")
        let afterComments = try feedItems(.news, me)
        XCTAssertFalse(ids(afterComments).contains(deletedComment), "a comment deleted by its author leaves news")
        XCTAssertFalse(ids(afterComments).contains(ownerDeletedComment), "a comment deleted by the video owner leaves news")
        XCTAssertTrue(ids(afterComments).contains(keptComment))
        XCTAssertEqual(afterComments.count, 6)

        assertSuccess(try client.request("DELETE", "/v1/videos/\(doomed)", token: me.token), 204, "delete a video")
        let afterVideo = try feedItems(.news, me)
        XCTAssertFalse(afterVideo.contains { child($0, "video")?["id"] as? String == doomed }, "activities about a deleted video leave news")
        XCTAssertEqual(afterVideo.count, 4)

        try feedDeleteAccount(leaver)
        XCTAssertEqual(try feedKeys(.news, me), [activityKey("comment", from: fan, to: me, video: kept)],
                       "a deleted account's likes, comments and follows leave news")
        XCTAssertEqual(try feedIds(.news, me), [keptComment])
    }

    func testHiddenVideoActivitiesStayInTheOwnersNews() throws {
        let me = try client.signup()
        let fan = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let video = try feedVideo(me, rallyId)
        try feedLike(fan, video); tick()
        try feedComment(fan, video); tick()
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(video)/hide", token: try moderator().token), 200, "hide")
        let news = try feedItems(.news, me)
        XCTAssertEqual(news.count, 2, "the owner still sees activities about a video they can see")
        XCTAssertTrue(news.allSatisfy { child($0, "video")?["hidden"] as? Bool == true }, "with video.hidden true: \(news)")
    }
}
