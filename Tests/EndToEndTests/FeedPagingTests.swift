import XCTest

/// The four feeds as pages: a session is required even with `--public-read`, `limit` is 1...100,
/// cursors are bound to their user and feed, and items arriving at the head while a client pages
/// never cause a duplicate or a gap.
final class FeedPagingTests: ServerTestCase {
    override class var serverArguments: [String] { ["--public-read"] }

    /// One character of `cursor` changed, in the middle (where base64 padding bits cannot hide it).
    private func tampered(_ cursor: String) -> String {
        guard !cursor.isEmpty else { return "A" }
        var characters = Array(cursor)
        let middle = characters.count / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return String(characters)
    }

    /// The `nextCursor` of the first page of 2; throws (ending the test) when there is none.
    private func cursor(_ feed: Feed, _ account: Account, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = appendingQuery(feed.path, "limit", "2")
        let result = try client.request("GET", path, token: account.token)
        guard result.status == 200, let page = result.object, let cursor = page["nextCursor"] as? String, !cursor.isEmpty else {
            throw UnexpectedResponse(request: "GET \(path) as \(account.username) (expected a page of 2 with a nextCursor)", result: result)
        }
        XCTAssertEqual(pageItems(page).count, 2, "\(feed.path) limit=2 for \(account.username)", file: file, line: line)
        return cursor
    }

    /// Two users who follow each other, each with 3 videos, each liking all 6: every feed of both
    /// has at least 3 items.
    private func pair() throws -> (Account, Account) {
        let one = try client.signup()
        let two = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        var videos: [String] = []
        for _ in 0..<3 {
            videos.append(try feedVideo(one, rallyId))
            videos.append(try feedVideo(two, rallyId))
        }
        try feedFollow(one, two)
        try feedFollow(two, one)
        for video in videos {
            try feedLike(one, video)
            try feedLike(two, video)
        }
        // Each following feed gets the other's follow and six likes through the outbox worker:
        // wait for all seven, so the tests below compare a feed that no longer changes.
        for account in [one, two] {
            XCTAssertEqual(try feedItems(.following, account, once: { $0.count >= 7 }).count, 7, "\(account.username)'s following feed settles")
        }
        return (one, two)
    }

    func testEveryFeedNeedsASessionEvenWithPublicRead() throws {
        let account = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let video = try feedVideo(account, rallyId)
        XCTAssertEqual(try client.request("GET", "/v1/videos/\(video)").status, 200, "--public-read is on: a video reads anonymously")
        for feed in Feed.allCases {
            assertError(try client.request("GET", feed.path), 401, "unauthorized", "\(feed.path) without a token")
            assertError(try client.request("GET", appendingQuery(feed.path, "limit", "5")), 401, "unauthorized", "\(feed.path)?limit=5 without a token")
            assertError(try client.request("GET", feed.path, token: "not-a-real-session-token"), 401, "invalid_session", "\(feed.path) with a bogus token")
            assertSuccess(try client.request("GET", feed.path, token: account.token), 200, "\(feed.path) with a session")
        }
        let page = try getObject(Feed.home.path, account.token)
        XCTAssertEqual(ids(pageItems(page)), [video])
        XCTAssertTrue(page.keys.contains("nextCursor") && page["nextCursor"] is NSNull, "nextCursor is present and null on the last page: \(page)")

        assertSuccess(try client.request("DELETE", "/v1/sessions/current", token: account.token), 204, "log out")
        for feed in Feed.allCases {
            assertError(try client.request("GET", feed.path, token: account.token), 401, "invalid_session", "\(feed.path) with a revoked token")
        }
    }

    func testLimitIsOneTo100() throws {
        let (one, _) = try pair()
        for feed in Feed.allCases {
            let all = try feedItems(feed, one)
            XCTAssertGreaterThanOrEqual(all.count, 3, "\(feed.path) has items")
            XCTAssertEqual(pageItems(try getObject(appendingQuery(feed.path, "limit", "1"), one.token)).count, 1, "\(feed.path) limit=1")
            XCTAssertEqual(pageItems(try getObject(appendingQuery(feed.path, "limit", "100"), one.token)).count, all.count, "\(feed.path) limit=100")
            XCTAssertEqual(pageItems(try getObject(feed.path, one.token)).count, min(all.count, 20), "\(feed.path) default limit 20")
            for bad in ["0", "101", "-1", "abc", "1.5", "99999999999999999999"] {
                assertError(try client.request("GET", appendingQuery(feed.path, "limit", bad), token: one.token),
                            400, "validation_failed", field: "limit", "\(feed.path) limit=\(bad)")
            }
            let byOne = try allPages(feed.path, one.token, limit: 1)
            XCTAssertEqual(byOne.sizes, Array(repeating: 1, count: all.count), "\(feed.path) by 1")
            XCTAssertEqual(ids(byOne.items), ids(all), "\(feed.path): pages of 1 walk the same items in the same order")
        }
    }

    func testCursorsAreBoundToTheirUserAndFeed() throws {
        let (one, two) = try pair()
        var cursors: [Feed: String] = [:]
        for feed in Feed.allCases {
            let cursor = try cursor(feed, one)
            cursors[feed] = cursor
            assertSuccess(try client.request("GET", appendingQuery(appendingQuery(feed.path, "limit", "2"), "cursor", cursor), token: one.token),
                          200, "\(feed.path): the genuine cursor")
            assertError(try client.request("GET", appendingQuery(feed.path, "cursor", cursor), token: two.token),
                        400, "invalid_cursor", "\(feed.path): a cursor of another user's feed")
            for bad in [tampered(cursor), String(cursor.dropLast()), cursor + "A", "not-a-cursor", "%00", String(repeating: "A", count: 2000)] {
                assertError(try client.request("GET", appendingQuery(feed.path, "cursor", bad), token: one.token),
                            400, "invalid_cursor", "\(feed.path): cursor \(bad.prefix(40))")
            }
        }
        for from in Feed.allCases {
            for to in Feed.allCases where to != from {
                assertError(try client.request("GET", appendingQuery(to.path, "cursor", cursors[from] ?? ""), token: one.token),
                            400, "invalid_cursor", "a \(from.rawValue) cursor on \(to.path)")
            }
        }
        let listCursor = try getObject("/v1/users/\(one.id)/videos?limit=1", one.token)["nextCursor"] as? String ?? ""
        assertError(try client.request("GET", appendingQuery(Feed.home.path, "cursor", listCursor), token: one.token),
                    400, "invalid_cursor", "a user-videos cursor on home")
        assertError(try client.request("GET", appendingQuery("/v1/users/\(one.id)/videos", "cursor", cursors[.home] ?? ""), token: one.token),
                    400, "invalid_cursor", "a home cursor on a user's videos")
    }

    func testHomePages20_20_5WhileNewVideosArriveAtTheHead() throws {
        let reader = try client.signup()
        let poster = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        var made: [String] = []
        for index in 0..<45 {
            if index == 20 { try feedFollow(reader, poster) }  // Some videos before the follow, some after.
            made.append(try feedVideo(poster, rallyId))
        }
        var added: [String] = []
        let walk = try allPages(Feed.home.path, reader.token, limit: 20) { _ in
            for _ in 0..<3 { added.append(try self.feedVideo(poster, rallyId)) }
        }
        XCTAssertEqual(walk.sizes, [20, 20, 5], "45 videos by 20; new ones at the head never shift the pages")
        XCTAssertEqual(ids(walk.items), made.reversed(), "exactly the 45, newest first, no duplicate or gap")
        XCTAssertTrue(Set(ids(walk.items)).isDisjoint(with: added), "videos added after page 1 are not seen in this walk")
        let fresh = try allPages(Feed.home.path, reader.token, limit: 20)
        XCTAssertEqual(fresh.sizes, [20, 20, 11])
        XCTAssertEqual(ids(fresh.items), (made + added).reversed(), "a fresh walk sees all 51, newest first")
    }

    func testNewsPages20_20_5WhileNewLikesArrive() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let lateFan = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        var videos: [String] = []
        for _ in 0..<45 { videos.append(try feedVideo(owner, rallyId)) }
        // Liked in a shuffled order, so the news order (by the like's time) differs from the videos' order.
        let likeOrder = videos.shuffled()
        for video in likeOrder {
            try feedLike(fan, video)
        }
        var lateLikes = 0
        let walk = try allPages(Feed.news.path, owner.token, limit: 20) { _ in
            for _ in 0..<3 {
                try self.feedLike(lateFan, videos[lateLikes])
                lateLikes += 1
            }
        }
        XCTAssertEqual(walk.sizes, [20, 20, 5], "45 likes by 20; new likes at the head never shift the pages")
        // In the order made; news is newest first by (createdAt, id) as the server answered them.
        let fanLikes = likeOrder.map { activityKey("like", from: fan, to: owner, video: $0) }
        let walkPositions = positions(walk.items)
        XCTAssertEqual(walk.items.map(activityKey), newestFirst(fanLikes, tie: .id) { walkPositions[$0] },
                       "exactly the fan's 45 likes, most recent first, no duplicate or gap")
        XCTAssertEqual(Set(walk.items.map(activityKey)), Set(fanLikes), "exactly the fan's 45 likes")
        XCTAssertEqual(Set(ids(walk.items)).count, 45, "45 distinct activity ids")
        let fresh = try allPages(Feed.news.path, owner.token, limit: 20)
        XCTAssertEqual(fresh.sizes, [20, 20, 11], "a fresh walk sees the 6 late likes too")
        let lateKeys = videos.prefix(6).map { activityKey("like", from: lateFan, to: owner, video: $0) }
        let freshPositions = positions(fresh.items)
        let freshExpected = newestFirst(fanLikes + lateKeys, tie: .id) { freshPositions[$0] }
        XCTAssertEqual(fresh.items.map(activityKey), freshExpected, "the late likes at the head, then the fan's, newest first")
    }
}
