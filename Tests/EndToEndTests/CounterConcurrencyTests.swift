import Storage
import XCTest

/// Counters stay exact when many phones act at the same moment: the API's numbers and the stored
/// columns both equal a COUNT(*) of the rows.
final class CounterConcurrencyTests: ServerTestCase {
    /// `count` accounts, signed up on as many threads (bcrypt cost 4 keeps this quick).
    private func accounts(_ count: Int) throws -> [Account] {
        let made = Locked([Int: Account]())
        let outcomes = runConcurrently(port: server.port, count) { index, client in
            do {
                let account = try client.signup()
                made.withLock { $0[index] = account }
                return "ok"
            } catch {
                return "\(error)"
            }
        }
        let accounts = made.withLock { made in (0..<count).compactMap { made[$0] } }
        guard accounts.count == count else {
            throw UnexpectedResponse(request: "\(count) signups", result: HTTPResult(status: 0, headers: HTTPHeaders(fields: []),
                                                                                        body: Data(outcomes.joined(separator: "\n").utf8), json: nil))
        }
        return accounts
    }

    private func tally(_ outcomes: [String]) -> [String: Int] {
        outcomes.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// Each thread sends one request as its own account; the outcome is "STATUS" or the error.
    private func everyone(_ accounts: [Account], _ method: String, _ path: String, json: [String: Any]? = nil) -> [String] {
        let tokens = accounts.map(\.token)
        let body: [String: String]? = json as? [String: String]
        return runConcurrently(port: server.port, accounts.count) { index, client in
            do {
                return "\(try client.request(method, path, json: body, token: tokens[index]).status)"
            } catch {
                return "\(error)"
            }
        }
    }

    func testFiftyConcurrentLikesThenUnlikes() throws {
        let owner = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let fans = try accounts(50)

        let likes = everyone(fans, "PUT", "/v1/videos/\(id)/like")
        XCTAssertEqual(tally(likes), ["200": 50], "every concurrent like answers 200")
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["likesCount"]), 50, "likesCount in the API")
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "likes_count", id: id), 50, "likes_count stored")
        XCTAssertEqual(try StoredCounters.activities(server, type: 1, videoId: id), 50, "like rows")
        XCTAssertEqual(try firstPage("/v1/videos/\(id)/likes", owner.token).count, 50)

        let unlikes = everyone(fans, "DELETE", "/v1/videos/\(id)/like")
        XCTAssertEqual(tally(unlikes), ["200": 50], "every concurrent unlike answers 200")
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["likesCount"]), 0)
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "likes_count", id: id), 0)
        XCTAssertEqual(try StoredCounters.activities(server, type: 1, videoId: id), 0)
        StoredCounters.assertAllExact(server)
    }

    func testOneUserLikingTwentyTimesAtOnceCountsOnce() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let likes = everyone(Array(repeating: fan, count: 20), "PUT", "/v1/videos/\(id)/like")
        XCTAssertEqual(tally(likes), ["200": 20], "idempotent even when racing itself")
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["likesCount"]), 1)
        XCTAssertEqual(try StoredCounters.activities(server, type: 1, videoId: id), 1)
        let unlikes = everyone(Array(repeating: fan, count: 20), "DELETE", "/v1/videos/\(id)/like")
        XCTAssertEqual(tally(unlikes), ["200": 20])
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "likes_count", id: id), 0)
        StoredCounters.assertAllExact(server)
    }

    func testFiftyConcurrentCommentsAndFlags() throws {
        let owner = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let people = try accounts(50)
        let comments = everyone(people, "POST", "/v1/videos/\(id)/comments", json: ["content": "Same time!"])
        XCTAssertEqual(tally(comments), ["201": 50])
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["commentsCount"]), 50)
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "comments_count", id: id), 50)
        XCTAssertEqual(try StoredCounters.activities(server, type: 2, videoId: id), 50)

        // Four flaggers, so the video stays below the auto-hide threshold (5) and visible to them.
        let flags = everyone(Array(people.prefix(3)) + Array(repeating: people[3], count: 7), "POST", "/v1/videos/\(id)/flags", json: ["reason": "race"])
        XCTAssertEqual(tally(flags), ["201": 4, "409": 6], "one flag per user, even racing: \(flags)")
        XCTAssertEqual(try StoredCounters.activities(server, type: 3, videoId: id), 4)
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "flags_count", id: id), 4)
        StoredCounters.assertAllExact(server)
    }

    func testFiftyConcurrentFollowsThenUnfollows() throws {
        let star = try client.signup()
        let fans = try accounts(50)
        let follows = everyone(fans, "PUT", "/v1/users/\(star.id)/follow")
        XCTAssertEqual(tally(follows), ["200": 50])
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", star.token)["followersCount"]), 50, "followersCount in the API")
        try server.withDatabase { db in
            XCTAssertEqual(try db.int("SELECT followers_count FROM users WHERE id = \(star.id)"), 50)
            XCTAssertEqual(try db.int("SELECT COUNT(*) FROM activities WHERE type = 4 AND to_user_id = \(star.id)"), 50)
            for fan in fans {
                XCTAssertEqual(try db.int("SELECT following_count FROM users WHERE id = \(fan.id)"), 1, "\(fan.username) following_count")
            }
        }
        for fan in fans.prefix(10) {
            XCTAssertEqual(jsonInt(try getObject("/v1/users/me", fan.token)["followingCount"]), 1, "each follower's followingCount")
        }
        XCTAssertEqual(try allPages("/v1/users/\(star.id)/followers", star.token, limit: 100).items.count, 50)

        let unfollows = everyone(fans, "DELETE", "/v1/users/\(star.id)/follow")
        XCTAssertEqual(tally(unfollows), ["200": 50])
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", star.token)["followersCount"]), 0)
        try server.withDatabase { db in
            XCTAssertEqual(try db.int("SELECT followers_count FROM users WHERE id = \(star.id)"), 0)
            XCTAssertEqual(try db.int("SELECT COUNT(*) FROM activities WHERE type = 4 AND to_user_id = \(star.id)"), 0)
            XCTAssertEqual(try db.int("SELECT COALESCE(SUM(following_count), 0) FROM users WHERE id IN (\(SQL.joined(fans.map { "\($0.id)" }, separator: ", ")))"), 0)
        }
        StoredCounters.assertAllExact(server)
    }
}
