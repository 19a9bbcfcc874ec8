import XCTest

/// Keyset pages: limits, cursors bound to their list, no duplicates or gaps while items arrive,
/// and the rally day's `recent` and `top` orders.
final class PagingTests: ServerTestCase {
    /// One character of `cursor` changed, in the middle (where base64 padding bits cannot hide it).
    private func tampered(_ cursor: String) -> String {
        var characters = Array(cursor)
        let middle = characters.count / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return String(characters)
    }

    private func nextCursor(_ path: String, _ token: String, limit: Int = 2) throws -> String {
        let page = try getObject(appendingQuery(path, "limit", "\(limit)"), token)
        guard let cursor = page["nextCursor"] as? String else {
            XCTFail("\(path) with limit \(limit) should have a next page: \(page)")
            return ""
        }
        return cursor
    }

    func testLimitIsOneTo100() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        for _ in 0..<22 { try postVideo(owner, rallyId: rallyId) }
        let path = "/v1/users/\(owner.id)/videos"
        let firstPage = try getObject(path, owner.token)
        XCTAssertEqual(pageItems(firstPage).count, 20, "limit defaults to 20")
        XCTAssertNotNil(firstPage["nextCursor"] as? String)
        XCTAssertEqual(pageItems(try getObject("\(path)?limit=1", owner.token)).count, 1)
        let hundred = try getObject("\(path)?limit=100", owner.token)
        XCTAssertEqual(pageItems(hundred).count, 22)
        XCTAssertTrue(hundred["nextCursor"] is NSNull || hundred["nextCursor"] == nil, "null on the last page: \(hundred)")
        XCTAssertTrue(hundred.keys.contains("nextCursor"), "nextCursor is present, as null")
        for bad in ["0", "101", "-1", "abc", "1.5", "99999999999999999999"] {
            for list in [path, "/v1/rallies/\(rallyId)/days/1/videos?sort=recent", "/v1/search/users?q=a"] {
                assertError(try client.request("GET", appendingQuery(list, "limit", bad), token: owner.token),
                            400, "validation_failed", field: "limit", "\(list) limit=\(bad)")
            }
        }
    }

    func testUserVideosPage20_20_5WhileNewOnesArriveAtTheHead() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        var made: [String] = []
        for _ in 0..<45 {
            made.append(try postVideo(owner, rallyId: rallyId)["id"] as? String ?? "")
        }
        var added: [String] = []
        let walk = try allPages("/v1/users/\(owner.id)/videos", owner.token, limit: 20) { _ in
            for _ in 0..<3 { added.append(try self.postVideo(owner, rallyId: rallyId)["id"] as? String ?? "") }
        }
        XCTAssertEqual(walk.sizes, [20, 20, 5], "45 items by 20, new items at the head never shift the pages")
        // Newest first by (createdAt, id) as the server answered them (videos made in one millisecond share a time).
        let walkPositions = positions(walk.items) { $0["id"] as? String ?? "" }
        XCTAssertEqual(ids(walk.items), newestFirst(made, tie: .id) { walkPositions[$0] }, "exactly the 45, newest first, no duplicates or gaps")
        XCTAssertEqual(Set(ids(walk.items)), Set(made), "exactly the 45")
        XCTAssertTrue(Set(ids(walk.items)).isDisjoint(with: added), "items added at the head after page 1 are not seen")
        let fresh = try allPages("/v1/users/\(owner.id)/videos", owner.token, limit: 20)
        XCTAssertEqual(fresh.sizes, [20, 20, 11])
        XCTAssertEqual(Set(ids(fresh.items)).count, 51)
    }

    func testCommentsPageOldestFirstAndNewOnesAppearOnTheLastPage() throws {
        let owner = try client.signup()
        let author = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        var made: [String] = []
        for index in 0..<45 {
            made.append(assertSuccess(try client.request("POST", "/v1/videos/\(id)/comments", json: ["content": "c\(index)"], token: author.token), 201)["id"] as? String ?? "")
        }
        var added: [String] = []
        let walk = try allPages("/v1/videos/\(id)/comments", owner.token, limit: 20) { pageNumber in
            guard pageNumber == 0 else { return }
            for index in 0..<3 {
                added.append(assertSuccess(try self.client.request("POST", "/v1/videos/\(id)/comments", json: ["content": "late \(index)"], token: author.token), 201)["id"] as? String ?? "")
            }
        }
        XCTAssertEqual(walk.sizes, [20, 20, 8], "the 3 comments added after page 1 land on the last page")
        // Oldest first by (createdAt, id) as the server answered them: the newest-first order reversed.
        let walkPositions = positions(walk.items) { $0["id"] as? String ?? "" }
        XCTAssertEqual(ids(walk.items), Array(newestFirst(made + added, tie: .id) { walkPositions[$0] }.reversed()), "oldest first, never duplicated")
        XCTAssertEqual(Set(ids(walk.items)), Set(made + added))
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["commentsCount"]), 48)
    }

    func testTamperedAndForeignCursorsAreInvalid() throws {
        let owner = try client.signup()
        let other = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        var videoIds: [String] = []
        for _ in 0..<3 {
            videoIds.append(try postVideo(owner, rallyId: rallyId)["id"] as? String ?? "")
            videoIds.append(try postVideo(other, rallyId: rallyId)["id"] as? String ?? "")
        }
        for videoId in videoIds.prefix(2) {
            for index in 0..<3 {
                assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/comments", json: ["content": "x\(index)"], token: other.token), 201)
            }
        }
        let ownerVideos = "/v1/users/\(owner.id)/videos"
        let cursor = try nextCursor(ownerVideos, owner.token)
        assertSuccess(try client.request("GET", appendingQuery(appendingQuery(ownerVideos, "limit", "2"), "cursor", cursor), token: owner.token), 200, "the genuine cursor")
        for bad in [tampered(cursor), String(cursor.dropLast()), cursor + "A", "not-a-cursor", "%00", String(repeating: "A", count: 2000)] {
            assertError(try client.request("GET", appendingQuery(ownerVideos, "cursor", bad), token: owner.token), 400, "invalid_cursor", "cursor \(bad.prefix(40))")
        }
        assertError(try client.request("GET", appendingQuery("/v1/users/\(other.id)/videos", "cursor", cursor), token: owner.token),
                    400, "invalid_cursor", "a cursor of another user's videos")

        let comments = try nextCursor("/v1/videos/\(videoIds[0])/comments", owner.token)
        assertError(try client.request("GET", appendingQuery("/v1/videos/\(videoIds[1])/comments", "cursor", comments), token: owner.token),
                    400, "invalid_cursor", "another video's comments")
        assertError(try client.request("GET", appendingQuery("/v1/videos/\(videoIds[0])/likes", "cursor", comments), token: owner.token),
                    400, "invalid_cursor", "the same video's likes")

        let recentPath = "/v1/rallies/\(rallyId)/days/1/videos?sort=recent"
        let topPath = "/v1/rallies/\(rallyId)/days/1/videos?sort=top"
        let recent = try nextCursor(recentPath, owner.token)
        let top = try nextCursor(topPath, owner.token)
        assertError(try client.request("GET", appendingQuery(topPath, "cursor", recent), token: owner.token), 400, "invalid_cursor", "a recent cursor on top")
        assertError(try client.request("GET", appendingQuery(recentPath, "cursor", top), token: owner.token), 400, "invalid_cursor", "a top cursor on recent")
        assertError(try client.request("GET", appendingQuery(ownerVideos, "cursor", recent), token: owner.token), 400, "invalid_cursor", "a rally cursor on a user's videos")
        assertError(try client.request("GET", appendingQuery(recentPath, "cursor", tampered(recent)), token: owner.token), 400, "invalid_cursor", "tampered rally cursor")
    }

    func testRallyDayOrdersRecentAndTop() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        var made: [String] = []
        for _ in 0..<5 {
            made.append(try postVideo(owner, rallyId: rallyId, day: 2)["id"] as? String ?? "")
        }
        let elsewhere = try postVideo(owner, rallyId: rallyId, day: 1)["id"] as? String ?? ""
        // Likes: made[1] 2, made[3] 1, made[0] 1, others 0.
        let fans = [try client.signup(), try client.signup()]
        for (video, count) in [(made[1], 2), (made[3], 1), (made[0], 1)] {
            for fan in fans.prefix(count) {
                assertSuccess(try client.request("PUT", "/v1/videos/\(video)/like", token: fan.token), 200)
            }
        }
        let base = "/v1/rallies/\(rallyId)/days/2/videos"
        let recent = try firstPage("\(base)?sort=recent", owner.token)
        // Newest first by (createdAt, id) as the server answered them.
        let recentPositions = positions(recent) { $0["id"] as? String ?? "" }
        let newest: ([String]) -> [String] = { videos in newestFirst(videos, tie: .id) { recentPositions[$0] } }
        XCTAssertEqual(ids(recent), newest(made), "recent: newest first, only day 2")
        XCTAssertFalse(ids(recent).contains(elsewhere))
        let top = try firstPage("\(base)?sort=top", owner.token)
        XCTAssertEqual(ids(top), [made[1]] + newest([made[0], made[3]]) + newest([made[2], made[4]]),
                       "top: likesCount desc, then newest")
        XCTAssertEqual(top.compactMap { jsonInt($0["likesCount"]) }, [2, 1, 1, 0, 0])
        for video in top { assertVideo(video) }
        let paged = try allPages("\(base)?sort=top", owner.token, limit: 2)
        XCTAssertEqual(paged.sizes, [2, 2, 1])
        XCTAssertEqual(ids(paged.items), ids(top), "top pages through ties without duplicates or gaps")
        XCTAssertEqual(ids(try allPages("\(base)?sort=recent", owner.token, limit: 2).items), ids(recent))

        assertError(try client.request("GET", "/v1/rallies/\(rallyId)/days/4/videos?sort=recent", token: owner.token), 404, "not_found", "a day the rally does not have")
        assertError(try client.request("GET", "/v1/rallies/no-such-rally/days/1/videos?sort=recent", token: owner.token), 404, "not_found")
        assertError(try client.request("GET", "\(base)?sort=best", token: owner.token), 400, "validation_failed", field: "sort", "an unknown sort")
    }
}
