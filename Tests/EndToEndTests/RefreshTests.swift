import Foundation
import XCTest

/// Pull-to-refresh (API.md "Sync"): every list ordered by time carries `prevCursor`, and
/// `?newerThan=` walks to the head in pages with no gap and no repeat, also while writers add
/// items; lists ordered otherwise refuse it; a prevCursor is bound to its list.
final class RefreshTests: ServerTestCase {
    /// Writers post videos and comment on the reader's video while the reader keeps four lists
    /// fresh (a rally day, the home feed, the video's comments, the inbox) in small pages. When
    /// the writers stop, each list's refreshes hold exactly what arrived after its first page,
    /// each id once.
    func testRefreshWalksToTheHeadWithoutGapOrRepeatWhileWritersPost() throws {
        let reader = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let writers = try (0..<4).map { _ in try client.signup() }
        for writer in writers { try feedFollow(reader, writer) }
        let readerVideo = try feedVideo(reader, rallyId)
        for writer in writers.prefix(3) { _ = try feedVideo(writer, rallyId) }

        let dayPath = "/v1/rallies/\(rallyId)/days/1/videos"
        let lists = [dayPath, Feed.home.path, "/v1/videos/\(readerVideo)/comments", "/v1/notifications"]
        let before = try Dictionary(uniqueKeysWithValues: lists.map { ($0, Set(ids(try allPages($0, reader.token, limit: 100).items))) })
        var refreshers = lists.map { ListRefresher(client: HTTPClient(port: server.port, timeout: 30), path: $0, token: reader.token, limit: 3) }
        for index in refreshers.indices { try refreshers[index].start() }
        let firstPages = refreshers.map { Set($0.seen) }

        let shared = Locked(refreshers)
        let polling = BackgroundLoop { try shared.withLock { all in for index in all.indices { try all[index].refresh() } } }

        let tokens = writers.map(\.token)
        let outcomes = runConcurrently(port: server.port, writers.count) { index, client in
            do {
                for number in 0..<20 {
                    let posted = try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": "W\(index) \(number)",
                                                                               "rallyId": rallyId, "day": 1], token: tokens[index])
                    guard posted.status == 201 else { return "POST /v1/videos -> \(posted.status)" }
                    if number.isMultiple(of: 2) {
                        let comment = try client.request("POST", "/v1/videos/\(readerVideo)/comments", json: ["content": "c\(index) \(number)"],
                                                         token: tokens[index])
                        guard comment.status == 201 else { return "POST comment -> \(comment.status)" }
                    }
                }
                return "ok"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertNil(polling.stop())
        XCTAssertEqual(outcomes, Array(repeating: "ok", count: writers.count))

        // The inbox fills through the outbox, a moment after the writes: refresh until the
        // lists hold what the server now lists, for at most 15 s. Waiting cannot hide a gap: an
        // item left behind a prevCursor never comes in a refresh again.
        refreshers = shared.withLock { $0 }
        for (index, path) in lists.enumerated() {
            var expected = Set<String>()
            let deadline = Date().addingTimeInterval(15)
            repeat {
                try refreshers[index].refresh()
                let now = Set(ids(try allPages(path, reader.token, limit: 100).items))
                // What a client has: its first page, and what its refreshes brought; the rest of
                // what was there before lies below the first page, reached with nextCursor.
                expected = now.subtracting(before[path]?.subtracting(firstPages[index]) ?? [])
                if Set(refreshers[index].seen) == expected { break }
                Thread.sleep(forTimeInterval: 0.1)
            } while Date() < deadline
            XCTAssertEqual(Set(refreshers[index].seen), expected, "\(path): the first page and the refreshes hold every item since, no more")
            XCTAssertEqual(refreshers[index].repeats, [], "\(path): no item came twice")
        }
        XCTAssertGreaterThanOrEqual(refreshers[0].seen.count, 80, "the day's refreshes brought the 80 new videos")
        XCTAssertGreaterThanOrEqual(refreshers[2].seen.count, 40, "the comments' refreshes brought the 40 comments")
    }

    func testARefreshAnswersNewestFirstWithHasNewerAndAnEmptyPageAtTheHead() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let path = "/v1/users/\(owner.id)/videos"
        let empty = try getObject(path, owner.token)
        XCTAssertEqual(pageItems(empty).count, 0)
        let mark = try XCTUnwrap(empty["prevCursor"] as? String, "an empty page has a prevCursor (the head): \(empty)")
        XCTAssertNil(empty["hasNewer"], "hasNewer is a refresh's")

        let atHead = try getObject(appendingQuery(appendingQuery(path, "newerThan", mark), "limit", "2"), owner.token)
        XCTAssertEqual(pageItems(atHead).count, 0)
        XCTAssertEqual(atHead["hasNewer"] as? Bool, false)
        XCTAssertNotNil(atHead["prevCursor"] as? String)

        for _ in 0..<5 { _ = try feedVideo(owner, rallyId) }
        // In the list's order, oldest first (two made in one millisecond are ordered by id).
        let made = Array(ids(try allPages(path, owner.token, limit: 100).items).reversed())
        let first = try getObject(appendingQuery(appendingQuery(path, "newerThan", mark), "limit", "2"), owner.token)
        XCTAssertEqual(ids(pageItems(first)), [made[1], made[0]], "the two items just above the mark, newest first")
        XCTAssertEqual(first["hasNewer"] as? Bool, true)
        XCTAssertTrue(first["nextCursor"] is NSNull, "a refresh has no nextCursor: \(first)")
        let next = try XCTUnwrap(first["prevCursor"] as? String)
        let second = try getObject(appendingQuery(appendingQuery(path, "newerThan", next), "limit", "2"), owner.token)
        XCTAssertEqual(ids(pageItems(second)), [made[3], made[2]])
        XCTAssertEqual(second["hasNewer"] as? Bool, true)
        let third = try getObject(appendingQuery(appendingQuery(path, "newerThan", second["prevCursor"] as? String ?? ""), "limit", "2"), owner.token)
        XCTAssertEqual(ids(pageItems(third)), [made[4]])
        XCTAssertEqual(third["hasNewer"] as? Bool, false)
        // Nothing new: the same answer, again and again, until something arrives.
        let quiet = try getObject(appendingQuery(path, "newerThan", third["prevCursor"] as? String ?? ""), owner.token)
        XCTAssertEqual(pageItems(quiet).count, 0)
    }

    /// A hidden video leaves a refresh for everyone but its owner (and moderators); a deleted
    /// one for everyone.
    func testHiddenAndDeletedVideosAreAbsentFromARefresh() throws {
        let owner = try client.signup(), viewer = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let path = "/v1/rallies/\(rallyId)/days/1/videos"
        let marks = try [owner, viewer].map { try XCTUnwrap(try getObject(path, $0.token)["prevCursor"] as? String) }
        let hidden = try feedVideo(owner, rallyId), deleted = try feedVideo(owner, rallyId), kept = try feedVideo(owner, rallyId)
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hidden)/hide", json: ["reason": "test"], token: try moderator().token), 200)
        assertSuccess(try client.request("DELETE", "/v1/videos/\(deleted)", token: owner.token), 204)
        XCTAssertEqual(ids(pageItems(try getObject(appendingQuery(path, "newerThan", marks[1]), viewer.token))), [kept])
        XCTAssertEqual(ids(pageItems(try getObject(appendingQuery(path, "newerThan", marks[0]), owner.token))), [kept, hidden])
    }

    func testListsNotOrderedByTimeRefuseNewerThanAndCursorsAreBound() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        for _ in 0..<3 { _ = try feedVideo(owner, rallyId) }
        let day = "/v1/rallies/\(rallyId)/days/1/videos"
        let page = try getObject(appendingQuery(day, "limit", "1"), owner.token)
        let prev = try XCTUnwrap(page["prevCursor"] as? String), next = try XCTUnwrap(page["nextCursor"] as? String)

        assertError(try client.request("GET", appendingQuery(appendingQuery(day, "sort", "top"), "newerThan", prev), token: owner.token),
                    400, "validation_failed", field: "newerThan", "sort=top has no time order")
        XCTAssertNil(try getObject(appendingQuery(day, "sort", "top"), owner.token)["prevCursor"], "a top list carries no prevCursor")
        assertError(try client.request("GET", "/v1/search/videos?q=stage&newerThan=\(queryValue(prev))", token: owner.token),
                    400, "validation_failed", field: "newerThan", "search has no time order")
        assertError(try client.request("GET", appendingQuery(appendingQuery(day, "cursor", next), "newerThan", prev), token: owner.token),
                    400, "validation_failed", field: "newerThan", "cursor and newerThan together")
        assertError(try client.request("GET", appendingQuery(day, "newerThan", next), token: owner.token),
                    400, "invalid_cursor", "a nextCursor is not a prevCursor")
        assertError(try client.request("GET", appendingQuery(day, "cursor", prev), token: owner.token),
                    400, "invalid_cursor", "a prevCursor is not a nextCursor")
        assertError(try client.request("GET", appendingQuery("/v1/users/\(owner.id)/videos", "newerThan", prev), token: owner.token),
                    400, "invalid_cursor", "another list's prevCursor")
        var tampered = Array(prev)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"
        assertError(try client.request("GET", appendingQuery(day, "newerThan", String(tampered)), token: owner.token),
                    400, "invalid_cursor", "a tampered prevCursor")
    }
}
