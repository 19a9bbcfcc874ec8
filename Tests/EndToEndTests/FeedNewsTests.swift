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

        try feedLike(liker, myVideo)
        let commentId = try feedComment(commenter, myVideo, "Great line")
        try feedFollow(fan, me)
        try feedFlag(flagger, myVideo)                         // a flag: never in news
        try feedLike(me, myVideo)                              // my own: never in news
        try feedComment(me, myVideo, "Thanks all")             // my own: never in news
        try feedLike(liker, othersVideo)                       // aimed at someone else
        try feedComment(commenter, othersVideo)                // aimed at someone else
        try feedFollow(fan, other)                             // aimed at someone else
        try feedFollow(me, fan)                                // mine, aimed at the fan

        let news = try feedItems(.news, me)
        // In the order made; the list is newest first by (createdAt, id) as the server answered them.
        let aimedAtMe = [
            activityKey("like", from: liker, to: me, video: myVideo),
            activityKey("comment", from: commenter, to: me, video: myVideo),
            activityKey("follow", from: fan, to: me),
        ]
        let newsPositions = positions(news)
        XCTAssertEqual(news.map(activityKey), newestFirst(aimedAtMe, tie: .id) { newsPositions[$0] },
                       "others' likes, comments and follows aimed at me, newest first; no flag, nothing of mine")
        assertNewestFirst(news, "news")
        let byType = Dictionary(news.map { ($0["type"] as? String ?? "?", $0) }, uniquingKeysWith: { first, _ in first })
        for type in ["follow", "comment", "like"] { assertActivity(byType[type], type: type) }
        XCTAssertEqual(byType["comment"]?["id"] as? String, commentId, "the comment's Activity id is the one POST answered")
        XCTAssertEqual(byType["comment"]?["content"] as? String, "Great line")
        XCTAssertTrue(byType["follow"]?["video"] is NSNull, "a follow has video null: \(byType["follow"] ?? [:])")
        XCTAssertEqual(child(byType["like"], "video")?["id"] as? String, myVideo, "a like carries its Video")
        XCTAssertFalse(news.contains { $0["type"] as? String == "inappropriate" }, "never a flag")

        XCTAssertEqual(try feedKeys(.news, fan), [activityKey("follow", from: me, to: fan)], "the fan's news: my follow of them")
        XCTAssertEqual(try feedKeys(.news, flagger), [], "a flagger's news is empty")
        let othersNews = try feedItems(.news, other)
        let othersPositions = positions(othersNews)
        XCTAssertEqual(othersNews.map(activityKey), newestFirst([
            activityKey("like", from: liker, to: other, video: othersVideo),
            activityKey("comment", from: commenter, to: other, video: othersVideo),
            activityKey("follow", from: fan, to: other),
        ], tie: .id) { othersPositions[$0] })
    }

    func testNewActivitiesArriveAtOnceAndUndoneOnesLeave() throws {
        let me = try client.signup()
        let fan = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let myVideo = try feedVideo(me, rallyId)
        XCTAssertEqual(try feedKeys(.news, me), [])

        try feedLike(fan, myVideo)
        XCTAssertEqual(try feedKeys(.news, me), [activityKey("like", from: fan, to: me, video: myVideo)], "a like shows at once")
        try feedFollow(fan, me)
        let both = try feedItems(.news, me)
        let bothPositions = positions(both)
        XCTAssertEqual(both.map(activityKey), newestFirst([activityKey("like", from: fan, to: me, video: myVideo), activityKey("follow", from: fan, to: me)],
                                                          tie: .id) { bothPositions[$0] },
                       "a follow shows at once, at the head (or, made in the same millisecond as the like, where its id puts it)")

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

        let keptComment = try feedComment(fan, kept, "stays")
        let deletedComment = try feedComment(fan, kept, "goes")
        let ownerDeletedComment = try feedComment(fan, kept, "goes too")
        try feedLike(fan, doomed)
        try feedComment(fan, doomed, "on the doomed one")
        try feedLike(leaver, kept)
        try feedComment(leaver, kept, "from the leaver")
        try feedFollow(leaver, me)
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
        try feedLike(fan, video)
        try feedComment(fan, video)
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(video)/hide", token: try moderator().token), 200, "hide")
        let news = try feedItems(.news, me)
        XCTAssertEqual(news.count, 2, "the owner still sees activities about a video they can see")
        XCTAssertTrue(news.allSatisfy { child($0, "video")?["hidden"] as? Bool == true }, "with video.hidden true: \(news)")
    }
}
