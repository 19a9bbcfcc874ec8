import Delivery
import Foundation
import CloudHooks
import Storage
import Telemetry
import XCTest
@testable import Community
@testable import SocialAPI

/// A like taken back before its fan-out ran (the job still waiting in the outbox) withdraws the
/// job instead of queueing a clean-up after it; whatever reached a following feed meanwhile is
/// still cleaned up. In process, on the database `TestDatabase` chooses, with the feed lane's
/// worker run by hand (the application's own workers are not started here).
final class FollowingCleanupTests: XCTestCase {
    private var app: TestApplication!
    private var videoID = ""
    /// The fan, whose likes fan out to `follower`.
    private var fan = "", fanID = ""
    private var follower = ""

    override func setUpWithError() throws {
        app = try TestApplication()
        videoID = try app.makeVideo().id
        fan = app.signUp("fan")
        follower = app.signUp("follower")
        fanID = try XCTUnwrap(app.request("GET", "/v1/users/me", token: fan).body["id"] as? String)
        XCTAssertEqual(app.request("PUT", "/v1/users/\(fanID)/follow", token: follower).status, 200)
        XCTAssertEqual(try runFeedJobs(), 0, "a follow has no fan-out of its own when the follower has no followers")
    }

    override func tearDown() {
        app = nil
    }

    @discardableResult
    private func runFeedJobs() throws -> Int {
        let timelines = Timelines(configuration: .init())
        let worker = OutboxWorker(database: app.application.database, jobs: try timelines.jobs(clock: SystemClock()))
        var ran = 0
        while case let jobs = try worker.runDueJobs(), jobs > 0 { ran += jobs }
        return ran
    }

    private func value(_ sql: SQL) throws -> Int {
        try app.application.database.read { c in try c.fetchValue(sql, as: Int.self) ?? -1 }
    }

    /// Following-feed rows of the fan's activities (their likes: the fan follows no one),
    /// whoever holds them.
    private func likeRows() throws -> Int {
        try value("SELECT COUNT(*) FROM following_timeline t JOIN users a ON a.seq = t.actor_seq WHERE a.id = \(fanID)")
    }

    private func feedJobs(_ kind: String) throws -> Int {
        try value("SELECT COUNT(*) FROM outbox WHERE lane = 'feed' AND kind = \(kind) AND state = 'pending'")
    }

    func testALikeTakenBackBeforeItsFanOutLeavesNoJobsAndNoRows() throws {
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(try feedJobs(FollowingFanOut.kind), 1, "the like's fan-out waits in the outbox")
        XCTAssertEqual(app.request("DELETE", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(try feedJobs(FollowingFanOut.kind), 0, "withdrawn")
        XCTAssertEqual(try feedJobs(FollowingCleanup.kind), 0, "nothing to clean: no follower followed since the like")
        XCTAssertEqual(try runFeedJobs(), 0)
        XCTAssertEqual(try likeRows(), 0)
    }

    func testALikeTakenBackAfterItsFanOutIsCleanedUp() throws {
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(try runFeedJobs(), 1)
        XCTAssertEqual(try likeRows(), 1, "the follower's feed has the like")
        XCTAssertEqual(app.request("DELETE", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(try feedJobs(FollowingCleanup.kind), 1)
        XCTAssertEqual(try runFeedJobs(), 1)
        XCTAssertEqual(try likeRows(), 0, "the row went with the like")
    }

    /// Someone who follows the fan while the like's fan-out waits gets the like at once
    /// (`Timelines.followed` copies recent activities); taking the like back withdraws the job
    /// and cleans up after that newer follower only.
    func testALikeTakenBackAfterANewFollowReachedItIsCleanedUpThere() throws {
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        let newcomer = app.signUp("newcomer")
        XCTAssertEqual(app.request("PUT", "/v1/users/\(fanID)/follow", token: newcomer).status, 200)
        XCTAssertEqual(try likeRows(), 1, "the newcomer's feed has the like already")
        XCTAssertEqual(app.request("DELETE", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(try feedJobs(FollowingFanOut.kind), 0, "withdrawn")
        XCTAssertEqual(try feedJobs(FollowingCleanup.kind), 1, "a clean-up for the newer follower")
        try runFeedJobs()
        XCTAssertEqual(try likeRows(), 0)
    }
}
