import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// Helpers for the feed tests (/v1/feed/home, news, following, likes): the social actions that
// feed them, whole-feed reads, and a compact description of activities for comparisons.

/// The four feeds of API.md.
enum Feed: String, CaseIterable {
    case home, news, following, likes

    var path: String { "/v1/feed/\(rawValue)" }
}

/// An activity as `type from->to @video` (video "-" for follows), for order-sensitive comparisons
/// that do not depend on activity ids (a like or follow answers with its Video or User, not the Activity).
func activityKey(_ activity: [String: Any]) -> String {
    let type = activity["type"] as? String ?? "?"
    let from = child(activity, "fromUser")?["id"] as? String ?? "?"
    let to = child(activity, "toUser")?["id"] as? String ?? "?"
    let video = child(activity, "video")?["id"] as? String ?? "-"
    return "\(type) \(from)->\(to) @\(video)"
}

func activityKey(_ type: String, from: Account, to: Account, video: String? = nil) -> String {
    "\(type) \(from.id)->\(to.id) @\(video ?? "-")"
}

/// `createdAt` of every item, in order.
func createdAts(_ items: [[String: Any]]) -> [String] {
    items.map { $0["createdAt"] as? String ?? "" }
}

/// Fails unless the ISO 8601 `createdAt` values never increase (same format, so string order is time order).
func assertNewestFirst(_ items: [[String: Any]], _ context: String, file: StaticString = #filePath, line: UInt = #line) {
    let times = createdAts(items)
    for index in times.indices.dropFirst() where times[index] > times[index - 1] {
        XCTFail("\(context): newest first, but item \(index) (\(times[index])) is newer than item \(index - 1) (\(times[index - 1]))", file: file, line: line)
        return
    }
}

/// How a newest-first list orders items made in the same millisecond (times are stored in
/// milliseconds, so requests made one after the other may share one): by id, descending (the
/// lists keyed by (createdAt, id)), or the one made later first (the home and following feeds,
/// keyed by (createdAt, seq), the seq being the order the rows were written in).
enum TieBreak { case id, made }

/// The `createdAt` and `id` of each item, by `key` (activityKey for activities, the id for videos).
func positions(_ items: [[String: Any]], key: ([String: Any]) -> String = activityKey) -> [String: (createdAt: String, id: String)] {
    Dictionary(items.map { (key($0), (createdAt: $0["createdAt"] as? String ?? "", id: $0["id"] as? String ?? "")) },
               uniquingKeysWith: { first, _ in first })
}

/// The order a newest-first list keyed by (createdAt, `tie`) must show `made` in, given in the
/// order they were made, each one's createdAt and id read from what the server answered
/// (`position`): newest first, equal times by `tie`. So tests need not space their writes out in
/// time. Fails if one has no position, or if one made later has an earlier createdAt (each write
/// answered before the next was sent, so the server's times follow the order made).
func newestFirst<Key>(_ made: [Key], tie: TieBreak, position: (Key) -> (createdAt: String, id: String)?,
                      file: StaticString = #filePath, line: UInt = #line) -> [Key] {
    var rows: [(key: Key, index: Int, createdAt: String, id: String)] = []
    for (index, key) in made.enumerated() {
        guard let found = position(key) else {
            XCTFail("no createdAt and id for \(key)", file: file, line: line)
            continue
        }
        if let previous = rows.last, found.createdAt < previous.createdAt {
            XCTFail("\(key), made after \(previous.key), has an earlier createdAt: \(found.createdAt) < \(previous.createdAt)", file: file, line: line)
        }
        rows.append((key, index, found.createdAt, found.id))
    }
    return rows.sorted { a, b in
        if a.createdAt != b.createdAt { return a.createdAt > b.createdAt }
        switch tie {
        case .id: return b.id.utf8.lexicographicallyPrecedes(a.id.utf8)
        case .made: return a.index > b.index
        }
    }.map(\.key)
}

extension Array {
    /// The element at `index`, or nil when out of range.
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension ServerTestCase {
    /// PUT /v1/users/{id}/follow; fails unless 200.
    func feedFollow(_ follower: Account, _ followee: Account, file: StaticString = #filePath, line: UInt = #line) throws {
        assertSuccess(try client.request("PUT", "/v1/users/\(followee.id)/follow", token: follower.token), 200,
                      "\(follower.username) follows \(followee.username)", file: file, line: line)
    }

    /// DELETE /v1/users/{id}/follow; fails unless 200.
    func feedUnfollow(_ follower: Account, _ followee: Account, file: StaticString = #filePath, line: UInt = #line) throws {
        assertSuccess(try client.request("DELETE", "/v1/users/\(followee.id)/follow", token: follower.token), 200,
                      "\(follower.username) unfollows \(followee.username)", file: file, line: line)
    }

    /// PUT /v1/videos/{id}/like; fails unless 200.
    func feedLike(_ liker: Account, _ videoId: String, file: StaticString = #filePath, line: UInt = #line) throws {
        assertSuccess(try client.request("PUT", "/v1/videos/\(videoId)/like", token: liker.token), 200,
                      "\(liker.username) likes \(videoId)", file: file, line: line)
    }

    /// DELETE /v1/videos/{id}/like; fails unless 200.
    func feedUnlike(_ liker: Account, _ videoId: String, file: StaticString = #filePath, line: UInt = #line) throws {
        assertSuccess(try client.request("DELETE", "/v1/videos/\(videoId)/like", token: liker.token), 200,
                      "\(liker.username) unlikes \(videoId)", file: file, line: line)
    }

    /// POST /v1/videos/{id}/comments; fails unless 201; returns the comment's activity id.
    @discardableResult
    func feedComment(_ author: Account, _ videoId: String, _ content: String = "Flat out!", file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let created = assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/comments", json: ["content": content], token: author.token), 201,
                                    "\(author.username) comments on \(videoId)", file: file, line: line)
        return created["id"] as? String ?? ""
    }

    /// POST /v1/videos/{id}/flags; fails unless 201.
    func feedFlag(_ flagger: Account, _ videoId: String, file: StaticString = #filePath, line: UInt = #line) throws {
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/flags", json: ["reason": "not rally"], token: flagger.token), 201,
                      "\(flagger.username) flags \(videoId)", file: file, line: line)
    }

    /// The id of a new video by `owner` on day 1 of `rallyId`.
    func feedVideo(_ owner: Account, _ rallyId: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let id = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        XCTAssertFalse(id.isEmpty, "the new video has an id", file: file, line: line)
        return id
    }

    /// The whole feed (pages of 100), newest first.
    func feedItems(_ feed: Feed, _ account: Account, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try feedItems(feed, token: account.token, file: file, line: line)
    }

    /// Walks the feed by pages of 100; throws (ending the test with the answer) on anything but a
    /// 200 page, so a missing or broken feed gives one clear failure instead of a cascade.
    func feedItems(_ feed: Feed, token: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        var cursor: String?
        for pageNumber in 0..<50 {
            var path = appendingQuery(feed.path, "limit", "100")
            if let cursor { path = appendingQuery(path, "cursor", cursor) }
            let result = try client.request("GET", path, token: token)
            guard result.status == 200, let page = result.object, let pageItems = page["items"] as? [[String: Any]] else {
                throw UnexpectedResponse(request: "GET \(path) (page \(pageNumber + 1))", result: result)
            }
            XCTAssertTrue(page.keys.contains("nextCursor"), "a page has nextCursor (null on the last): \(result)", file: file, line: line)
            items += pageItems
            guard let next = page["nextCursor"] as? String, !next.isEmpty else { return items }
            cursor = next
        }
        XCTFail("\(feed.path): still a nextCursor after 50 pages of 100", file: file, line: line)
        return items
    }

    /// The first page of `limit` items of the feed; throws on anything but a 200 page.
    func feedFirstPage(_ feed: Feed, _ account: Account, limit: Int = 100) throws -> [[String: Any]] {
        let path = appendingQuery(feed.path, "limit", "\(limit)")
        let result = try client.request("GET", path, token: account.token)
        guard result.status == 200, let items = result.object?["items"] as? [[String: Any]] else {
            throw UnexpectedResponse(request: "GET \(path) as \(account.username)", result: result)
        }
        return items
    }

    /// Ids of the whole feed's items (videos for home and likes).
    func feedIds(_ feed: Feed, _ account: Account, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        ids(try feedItems(feed, account, file: file, line: line))
    }

    /// The whole feed once `settled` holds of it, polled every 50 ms for up to 10 s; the last
    /// items read if it never does (the caller's assertions then say what is wrong). For the
    /// following feed, which the outbox worker fills after the write has answered.
    func feedItems(_ feed: Feed, _ account: Account, once settled: ([[String: Any]]) -> Bool,
                   file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        _ = try waitUntil {
            items = try feedItems(feed, account, file: file, line: line)
            return settled(items)
        }
        return items
    }

    /// Waits (up to 10 s, polling `/metrics`) until the outbox has no job waiting or running,
    /// so a read after it sees every fan-out the earlier writes started; fails the test if the
    /// backlog never empties. For assertions that something stays out of a feed, which a read
    /// made before the worker ran would pass for the wrong reason.
    func waitForFanOut(file: StaticString = #filePath, line: UInt = #line) throws {
        var last = "no answer"
        let drained = try waitUntil {
            let metrics = try client.request("GET", "/metrics")
            last = metrics.text.components(separatedBy: "\n").first { $0.hasPrefix("pacenote_outbox_backlog ") } ?? "no backlog gauge"
            return last == "pacenote_outbox_backlog 0"
        }
        XCTAssertTrue(drained, "the outbox did not drain within 10 s: \(last)", file: file, line: line)
    }

    /// `activityKey` of the whole feed's items (activities for news and following).
    func feedKeys(_ feed: Feed, _ account: Account, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try feedItems(feed, account, file: file, line: line).map(activityKey)
    }

    /// DELETE /v1/users/me; fails unless 204.
    func feedDeleteAccount(_ account: Account, file: StaticString = #filePath, line: UInt = #line) throws {
        assertSuccess(try client.request("DELETE", "/v1/users/me", json: ["password": account.password], token: account.token), 204,
                      "\(account.username) deletes the account", file: file, line: line)
    }
}
