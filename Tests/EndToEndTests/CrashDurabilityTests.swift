import Foundation
import TestSupport
import XCTest

/// A server killed (SIGKILL) in the middle of a burst of writes loses nothing it acknowledged:
/// after the restart every comment that got its 201 is there, the counters agree with the rows,
/// and the database file is whole. (On SQLite this is also the end-to-end check of the VFS that
/// gathers a commit's WAL frames into one write, Sources/CSQLiteWAL.)
final class CrashDurabilityTests: ServerTestCase {
    func testEveryAcknowledgedCommentSurvivesAKillInTheMiddleOfABurst() throws {
        let owner = try client.signup()
        let videoID = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let authors = try (0..<8).map { _ in try client.signup() }
        let acknowledged = Locked([String]())
        let unexpected = Locked([String]())
        let port = server.port
        let writers = DispatchGroup()
        for (index, token) in authors.map(\.token).enumerated() {
            writers.enter()
            Thread {
                defer { writers.leave() }
                let http = HTTPClient(port: port, timeout: 10)
                defer { http.close() }
                for n in 0... {
                    // The kill ends the loop: the connection fails mid-request or at the next one.
                    guard let result = try? http.request("POST", "/v1/videos/\(videoID)/comments",
                                                         json: ["content": "writer \(index), comment \(n)"], token: token) else { return }
                    guard result.status == 201, let id = result.object?["id"] as? String else {
                        unexpected.withLock { $0.append("\(result.status): \(result.text)") }
                        return
                    }
                    acknowledged.withLock { $0.append(id) }
                }
            }.start()
        }
        _ = waitUntil(timeout: 30, interval: 0.005) { acknowledged.withLock({ $0.count }) >= 400 }
        server.crash()
        XCTAssertEqual(writers.wait(timeout: .now() + 30), .success, "every writer stopped after the kill")
        XCTAssertEqual(unexpected.withLock { $0 }, [], "before the kill every comment was answered 201")
        let answered = Set(acknowledged.withLock { $0 })
        XCTAssertGreaterThanOrEqual(answered.count, 400, "the burst was under way when the server was killed")

        try server.start()
        let stored = try server.withDatabase { database in
            (ids: Set(try database.strings("SELECT id FROM activities WHERE type = 2 AND video_id = \(videoID)")),
             integrity: TestDatabase.isPostgres ? ["ok"] : try database.strings("PRAGMA integrity_check"))
        }
        XCTAssertEqual(answered.subtracting(stored.ids).count, 0, "acknowledged comments lost in the crash")
        XCTAssertEqual(stored.integrity, ["ok"], "the SQLite file is whole after the crash")
        let restarted = newClient()
        defer { restarted.close() }
        let video = try restarted.request("GET", "/v1/videos/\(videoID)", token: owner.token)
        XCTAssertEqual(video.status, 200, video.text)
        XCTAssertEqual(jsonInt(video.object?["commentsCount"]), stored.ids.count, "commentsCount counts what survived, acknowledged or not")
        StoredCounters.assertAllExact(server, "after the crash")
    }
}
