import XCTest

/// Hot accounts (issue 15): with `--fanout-hot-followers 2`, an account with two followers or
/// more is hot. Its new videos get no home_timeline row per follower; the home feed merges them
/// in when read, so followers see the same feed as with fan-out: newest first, every video
/// once across pages (also those fanned out before the account turned hot), and unfollows,
/// hiding, bans and deletions showing in the very next request.
final class FeedHotAccountTests: ServerTestCase {
    override class var serverArguments: [String] { ["--fanout-hot-followers", "2"] }

    /// Home timeline rows of a video (stored, not shown): the owner's own, plus one per
    /// follower it was fanned out to.
    private func storedHomeRows(_ video: String) throws -> Int {
        try server.withDatabase {
            try $0.int("SELECT COUNT(*) FROM home_timeline t JOIN videos v ON v.seq = t.video_seq WHERE v.id = \(video)")
        }
    }

    /// The whole home feed read in pages of `limit`, each page's ids in order.
    private func pagedHome(_ account: Account, limit: Int) throws -> [String] {
        var all: [String] = []
        var cursor: String?
        for _ in 0..<50 {
            var path = appendingQuery(Feed.home.path, "limit", "\(limit)")
            if let cursor { path = appendingQuery(path, "cursor", cursor) }
            let page = try getObject(path, account.token)
            let items = pageItems(page)
            XCTAssertLessThanOrEqual(items.count, limit)
            all += ids(items)
            guard let next = page["nextCursor"] as? String else { return all }
            XCTAssertEqual(items.count, limit, "only the last page is short")
            cursor = next
        }
        XCTFail("the home feed did not end within 50 pages")
        return all
    }

    func testAccountTurningHotKeepsEveryVideoOnceInOrderAcrossPages() throws {
        let star = try client.signup()
        let quiet = try client.signup()  // one follower: never hot
        let reader = try client.signup()
        let late = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        try feedFollow(reader, star)
        try feedFollow(reader, quiet)
        let mine = try feedVideo(reader, rallyId)
        let beforeHot = try feedVideo(star, rallyId)
        let quietFirst = try feedVideo(quiet, rallyId)
        XCTAssertEqual(try storedHomeRows(beforeHot), 2, "one follower: the star's video is fanned out as before")

        try feedFollow(late, star)  // the second follower: the star is hot from here on
        var hotVideos: [String] = []
        var created = [mine, beforeHot, quietFirst]  // oldest first
        for owner in [star, quiet, star, star, quiet, reader, star] {
            let video = try feedVideo(owner, rallyId)
            created.append(video)
            if owner.id == star.id { hotVideos.append(video) }
        }
        let expected = Array(created.reversed())
        for video in hotVideos {
            XCTAssertEqual(try storedHomeRows(video), 1, "a hot account's new video is stored once, for its owner only")
        }
        XCTAssertEqual(try storedHomeRows(created[4]), 2, "the quiet account's videos are still fanned out")

        XCTAssertEqual(try feedIds(.home, reader), expected, "merged home: everything I follow and mine, newest first, each once")
        assertNewestFirst(try feedItems(.home, reader), "merged home")
        // Home lists only people the reader follows and the reader: every owner but the
        // reader is followed, from the fanned-out rows and the hot arms alike.
        for item in try feedItems(.home, reader) {
            let owner = item["owner"] as? [String: Any] ?? [:]
            if owner["id"] as? String == reader.id {
                XCTAssertNil(owner["isFollowing"], "my own video's owner is me: no isFollowing")
            } else {
                XCTAssertEqual(owner["isFollowing"] as? Bool, true, "a followed owner (\(owner["id"] ?? "?"))")
            }
        }
        for limit in [1, 2, 3, 4] {
            XCTAssertEqual(try pagedHome(reader, limit: limit), expected, "pages of \(limit) walk the merged feed without a gap or a repeat")
        }
        let starsVideos = expected.filter { hotVideos.contains($0) || $0 == beforeHot }
        XCTAssertEqual(try feedIds(.home, late), starsVideos, "the follower who made the star hot sees all its videos")
        XCTAssertEqual(try feedIds(.home, star), starsVideos, "the star's own home keeps its own videos")

        let rows = try storedHomeRows(beforeHot)
        let newcomer = try client.signup()
        try feedFollow(newcomer, star)
        XCTAssertEqual(try storedHomeRows(beforeHot), rows, "following a hot account copies nothing")
        XCTAssertEqual(try feedIds(.home, newcomer), starsVideos, "and shows all its videos at once")
    }

    func testUnfollowHideBanAndDeleteShowAtOnceForAHotAccount() throws {
        let star = try client.signup()
        let fan = try client.signup()
        let other = try client.signup()
        let mod = try moderator()
        let rallyId = try createRally()["id"] as? String ?? ""
        for account in [fan, other, mod] { try feedFollow(account, star) }
        let videos = [try feedVideo(star, rallyId), try feedVideo(star, rallyId), try feedVideo(star, rallyId)]
        XCTAssertEqual(try storedHomeRows(videos[2]), 1, "three followers: the star is hot")
        XCTAssertEqual(try feedIds(.home, fan), videos.reversed())

        try feedUnfollow(fan, star)
        XCTAssertEqual(try feedIds(.home, fan), [], "unfollowing a hot account empties my home at once")
        try feedFollow(fan, star)
        XCTAssertEqual(try feedIds(.home, fan), videos.reversed(), "following it again brings everything back at once")

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(videos[1])/hide", token: mod.token), 200, "hide")
        XCTAssertEqual(try feedIds(.home, fan), [videos[2], videos[0]], "a hidden video of a hot account leaves its followers' home")
        let seenByModerator = try feedItems(.home, mod)
        XCTAssertEqual(ids(seenByModerator), videos.reversed(), "a moderator still sees it")
        XCTAssertEqual(seenByModerator.first { $0["id"] as? String == videos[1] }?["hidden"] as? Bool, true)
        XCTAssertEqual(try feedIds(.home, star), videos.reversed(), "so does its owner")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(videos[1])/restore", token: mod.token), 200, "restore")

        assertSuccess(try client.request("POST", "/v1/moderation/users/\(star.id)/ban", json: ["reason": "abuse"], token: mod.token), 200, "ban")
        XCTAssertEqual(try feedIds(.home, fan), [], "a banned hot account's videos leave its followers' home")
        XCTAssertEqual(try feedIds(.home, mod), videos.reversed(), "moderators still see them")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(star.id)/unban", token: mod.token), 200, "unban")
        XCTAssertEqual(try feedIds(.home, fan), videos.reversed(), "unbanned: back in their places")

        var star2 = star
        star2.token = try client.login(star.username, star.password).token  // the ban ended the star's sessions
        assertSuccess(try client.request("DELETE", "/v1/videos/\(videos[0])", token: star2.token), 204, "delete a video")
        XCTAssertEqual(try feedIds(.home, fan), [videos[2], videos[1]], "a deleted video leaves home")

        // Hot is sticky: below the threshold again, the star's new videos are still merged in.
        try feedUnfollow(other, star)
        try feedUnfollow(mod, star)
        let afterward = try feedVideo(star2, rallyId)
        XCTAssertEqual(try storedHomeRows(afterward), 1, "still hot with one follower left")
        XCTAssertEqual(try feedIds(.home, fan), [afterward, videos[2], videos[1]])
    }
}
