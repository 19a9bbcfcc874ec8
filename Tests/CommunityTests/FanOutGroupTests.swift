import Foundation
import CloudHooks
import Storage
import Telemetry
import TestSupport
import XCTest
@testable import Community

/// The feed lane's group runs (SQLite): the `fanout.following` jobs of a batch go out in one
/// statement, with the same rows, exactly once, as one job at a time would write.
final class FanOutGroupTests: XCTestCase {
    private var temp: TemporarySQLite!

    /// The author `a` (seq 1) has three followers, `f1` to `f3` (seqs 2 to 4); `t1` to `t4` are
    /// people `a` follows, so each of those follows is an activity of `a` to fan out.
    override func setUpWithError() throws {
        temp = try TemporarySQLite(migrated: true)
        try temp.database.write { c in
            for (seq, id, followers) in [(1, "a", 3), (2, "f1", 0), (3, "f2", 0), (4, "f3", 0), (5, "t1", 1), (6, "t2", 1), (7, "t3", 1), (8, "t4", 1)] {
                try c.execute("""
                    INSERT INTO users (seq, id, username, username_key, email, email_key, display_name, password_hash, created_at, updated_at, followers_count)
                    VALUES (\(seq), \(id), \(id), \(id), \(id + "@example.com"), \(id + "@example.com"), \(id), 'x', 0, 0, \(followers))
                    """)
            }
            for (n, follower) in ["f1", "f2", "f3"].enumerated() {
                try c.execute("INSERT INTO activities (id, type, from_user_id, to_user_id, created_at) VALUES (\("follow-\(follower)"), 4, \(follower), 'a', \(n))")
            }
            for (n, target) in ["t1", "t2", "t3", "t4"].enumerated() {
                try c.execute("INSERT INTO activities (id, type, from_user_id, to_user_id, created_at) VALUES (\("x\(n + 1)"), 4, 'a', \(target), \(100 + n))")
            }
        }
    }

    override func tearDown() {
        temp = nil
    }

    private func worker(batchSize: Int = 1_000) throws -> OutboxWorker {
        var configuration = Timelines.Configuration()
        configuration.batchSize = batchSize
        let timelines = Timelines(configuration: configuration)
        var lane = OutboxWorker.Configuration()
        lane.batchMillis = 10_000  // the whole batch runs: its later groups take many jobs
        return OutboxWorker(database: temp.database, jobs: try timelines.jobs(clock: SystemClock()), configuration: lane)
    }

    private func enqueueFanOut(_ activity: String, after: Int64 = 0) throws {
        try temp.database.write { c in
            try FollowingFanOut(activityID: activity, after: after).enqueue(now: 0, on: c)
        }
    }

    /// The following feeds, as "reader:activity" pairs.
    private func rows() throws -> [String] {
        try temp.database.read { c in
            try c.fetchAll("""
                SELECT r.id AS reader, a.id AS activity FROM following_timeline t
                JOIN users r ON r.seq = t.user_seq JOIN activities a ON a.seq = t.activity_seq
                ORDER BY r.id, a.id
                """).map { "\(try $0.decode("reader", as: String.self)):\(try $0.decode("activity", as: String.self))" }
        }
    }

    private func states() throws -> [String] {
        try temp.database.read { c in try c.fetchAll("SELECT state FROM outbox ORDER BY seq").map { try $0.decode("state", as: String.self) } }
    }

    private func everyFollowerHas(_ activities: [String]) -> [String] {
        ["f1", "f2", "f3"].flatMap { reader in activities.map { "\(reader):\($0)" } }
    }

    func testAGroupFansEveryActivityOutToEveryFollowerOnce() throws {
        for activity in ["x1", "x2", "x3", "x4"] { try enqueueFanOut(activity) }
        let worker = try worker()
        XCTAssertEqual(try worker.runDueJobs(), 4)
        XCTAssertEqual(try rows(), everyFollowerHas(["x1", "x2", "x3", "x4"]))
        XCTAssertEqual(try states(), ["done", "done", "done", "done"])
        try enqueueFanOut("x2")  // the same activity again (a retry after a crash, say) adds nothing
        XCTAssertEqual(try worker.runDueJobs(), 1)
        XCTAssertEqual(try worker.runDueJobs(), 0)
        XCTAssertEqual(try rows(), everyFollowerHas(["x1", "x2", "x3", "x4"]), "exactly one row per follower and activity")
    }

    /// A bad job in a group: the group is rolled back and run job by job; the bad one alone
    /// waits for its retry, the others' rows are written once.
    func testABadJobFailsAloneAndTheRestOfItsGroupIsDone() throws {
        try enqueueFanOut("x1")
        try enqueueFanOut("x2")
        try temp.database.write { c in try Outbox().enqueue(kind: FollowingFanOut.kind, payload: "{}", now: 0, on: c) }
        try enqueueFanOut("x3")
        XCTAssertEqual(try worker().runDueJobs(), 4)
        XCTAssertEqual(try rows(), everyFollowerHas(["x1", "x2", "x3"]))
        XCTAssertEqual(try states(), ["done", "done", "pending", "done"])
        let error = try temp.database.read { c in try c.fetchValue("SELECT last_error FROM outbox WHERE seq = 3", as: String.self) }
        XCTAssertTrue(error?.contains("activity") ?? false, error ?? "no error recorded")
    }

    /// An author with more followers than a job takes goes out in bounded steps, each next
    /// step a job of its own, also when the first job ran in a group.
    func testAnAuthorWithMoreFollowersThanABatchContinuesInLaterJobs() throws {
        for activity in ["x1", "x2"] { try enqueueFanOut(activity) }
        let worker = try worker(batchSize: 2)
        XCTAssertEqual(try worker.runDueJobs(), 2)
        XCTAssertEqual(try rows(), ["f1:x1", "f1:x2", "f2:x1", "f2:x2"], "the first two followers, by follow")
        let continued = try temp.database.read { c in
            try c.fetchAll("SELECT payload ->> '$.activity' AS activity FROM outbox WHERE state = 'pending' ORDER BY seq")
                .map { try $0.decode("activity", as: String.self) }
        }
        XCTAssertEqual(continued, ["x1", "x2"])
        XCTAssertEqual(try worker.runDueJobs(), 2)
        XCTAssertEqual(try rows(), everyFollowerHas(["x1", "x2"]))
        XCTAssertEqual(try worker.runDueJobs(), 0, "nothing left to continue")
    }

    /// The notify lane's group: only the activities some follower wants to hear of run as
    /// jobs (here `f2` turned `followingActivity` on); the others end at the group's one
    /// statement, done, with no notification.
    func testFollowingNotificationsGoOnlyToFollowersWhoWantThemAndEveryJobIsDone() throws {
        let notifier = Notifier(configuration: .init(), clock: SystemClock())
        var lane = OutboxWorker.Configuration()
        lane.lane = .notify
        lane.batchMillis = 10_000
        let worker = OutboxWorker(database: temp.database, jobs: try notifier.jobs(), configuration: lane)
        let enqueue = { (activity: String) in
            try self.temp.database.write { c in
                try FollowersNotice(activityID: activity, after: 0, push: false).enqueue(now: 0, on: c)
            }
        }
        for activity in ["x1", "x2", "x3"] { try enqueue(activity) }
        XCTAssertEqual(try worker.runDueJobs(), 3)
        XCTAssertEqual(try temp.count("notifications"), 0, "nobody wants following activity")
        try temp.database.write { c in try c.execute("UPDATE users SET notify_following_activity = 1 WHERE id = 'f2'") }
        for activity in ["x1", "x2", "x3", "x4"] { try enqueue(activity) }
        XCTAssertEqual(try worker.runDueJobs(), 4)
        let received = try temp.database.read { c in
            try c.fetchAll("SELECT user_id || ':' || activity_id AS n FROM notifications ORDER BY n").map { try $0.decode("n", as: String.self) }
        }
        XCTAssertEqual(received, ["f2:x1", "f2:x2", "f2:x3", "f2:x4"])
        XCTAssertEqual(try states(), Array(repeating: "done", count: 7))
    }

    /// Undone before its fan-out ran (a like, then its unlike): the fan-out job finds nothing,
    /// the cleanup job nothing to remove, and both are done.
    func testAnActivityUndoneBeforeItsFanOutLeavesNoRows() throws {
        for activity in ["x1", "x2"] { try enqueueFanOut(activity) }
        try temp.database.write { c in
            let timelines = Timelines(configuration: .init())
            let undone = try XCTUnwrap(try ActivityStore().find(id: "x1", on: c))
            try timelines.activityDeleting(undone, now: 0, on: c)
            try c.execute("DELETE FROM activities WHERE id = 'x1'")
        }
        XCTAssertEqual(try worker().runDueJobs(), 3)
        XCTAssertEqual(try rows(), everyFollowerHas(["x2"]))
        XCTAssertEqual(try states(), ["done", "done", "done"])
    }
}
