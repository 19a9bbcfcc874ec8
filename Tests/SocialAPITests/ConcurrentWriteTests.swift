import Foundation
import Storage
import Synchronization
import XCTest
@testable import Community
@testable import SocialAPI

/// Writes racing each other through the whole stack, in process, on the database `TestDatabase`
/// chooses. SQLite's single writer runs them one after another; PostgreSQL runs them side by side
/// in SERIALIZABLE transactions, where conflicting ones fail (40001, or a unique violation on the
/// check-then-insert paths) and are run again. Either way every answer is what the contract says
/// and the counters equal the rows.
final class ConcurrentWriteTests: XCTestCase {
    /// Runs `work` on `count` threads released together; answers each thread's result in order.
    private func together<T: Sendable>(_ count: Int, _ work: @escaping @Sendable (Int) -> T) -> [T] {
        let results = Mutex([Int: T]())
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                let result = work(index)
                results.withLock { $0[index] = result }
                done.leave()
            }
        }
        for _ in 0..<count { start.signal() }
        done.wait()
        return results.withLock { results in (0..<count).compactMap { results[$0] } }
    }

    private func count(_ app: TestApplication, _ sql: SQL) throws -> Int {
        try app.application.database.read { c in try c.fetchValue(sql, as: Int.self) ?? -1 }
    }

    /// 40 people like one video at once: every like answers 200 and counts, within the
    /// PostgreSQL driver's retry budget (`conflictRetryMillis`, 5 s), though each like updates
    /// the same row of `videos` and so conflicts with every like committed since it began.
    func testFortyConcurrentLikesOfOneVideoAllCount() throws {
        let app = try TestApplication()
        let (owner, id) = try app.makeVideo()
        let fans = (0..<40).map { app.signUp("fan_\($0)") }
        let statuses = together(40) { index in app.request("PUT", "/v1/videos/\(id)/like", token: fans[index]).status }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 40), "every like answers 200")
        XCTAssertEqual(app.request("GET", "/v1/videos/\(id)", token: owner).body["likesCount"] as? Int, 40)
        XCTAssertEqual(try count(app, "SELECT likes_count FROM videos WHERE id = \(id)"), 40)
        XCTAssertEqual(try count(app, "SELECT COUNT(*) FROM activities WHERE type = 1 AND video_id = \(id)"), 40)
    }

    /// One user racing themself: likes and follows are idempotent (200, one row, counted once),
    /// a second flag is 409 `conflict`; never a 500 from the unique index the loser hits.
    func testOneUserRacingThemselfLikesFollowsAndFlagsOnce() throws {
        let app = try TestApplication()
        let (owner, id) = try app.makeVideo()
        let fan = app.signUp("the_fan")

        let likes = together(20) { _ in app.request("PUT", "/v1/videos/\(id)/like", token: fan).status }
        XCTAssertEqual(likes, Array(repeating: 200, count: 20))
        XCTAssertEqual(try count(app, "SELECT likes_count FROM videos WHERE id = \(id)"), 1)
        XCTAssertEqual(try count(app, "SELECT COUNT(*) FROM activities WHERE type = 1 AND video_id = \(id)"), 1)

        let follows = together(20) { _ in app.request("PUT", "/v1/users/owner/follow", token: fan).status }
        XCTAssertEqual(follows, Array(repeating: 200, count: 20))
        XCTAssertEqual(app.request("GET", "/v1/users/me", token: owner).body["followersCount"] as? Int, 1)
        XCTAssertEqual(try count(app, "SELECT COUNT(*) FROM activities WHERE type = 4 AND to_user_id = (SELECT id FROM users WHERE username = 'owner')"), 1)

        let flags = together(10) { _ in
            let answer = app.request("POST", "/v1/videos/\(id)/flags", json: #"{"reason":"race"}"#, token: fan)
            return "\(answer.status) \((answer.body["error"] as? [String: Any])?["code"] as? String ?? "")"
        }
        XCTAssertEqual(flags.filter { $0 == "201 " }.count, 1, "\(flags)")
        XCTAssertEqual(flags.filter { $0 == "409 conflict" }.count, 9, "\(flags)")
        XCTAssertEqual(try count(app, "SELECT flags_count FROM videos WHERE id = \(id)"), 1)
    }
}
