import Storage
import Telemetry
import TestSupport
import XCTest
@testable import Community
@testable import Auth
@testable import CloudHooks
@testable import Delivery
@testable import SocialAPI

/// Forwards to a real connection and keeps every statement it is given, so a test can ask
/// SQLite how it runs exactly the SQL a store sends, binds included.
final class RecordingConnection: DatabaseConnection {
    let base: any DatabaseConnection
    private(set) var statements: [SQL] = []

    init(_ base: any DatabaseConnection) { self.base = base }

    var dialect: SQLDialect { base.dialect }

    func execute(_ sql: SQL) throws(StorageError) -> Int {
        statements.append(sql)
        return try base.execute(sql)
    }

    func fetchAll(_ sql: SQL) throws(StorageError) -> [Row] {
        statements.append(sql)
        return try base.fetchAll(sql)
    }

    func fetchAll<T>(_ sql: SQL, reading read: (inout RowReader) throws -> T) throws -> [T] {
        statements.append(sql)
        return try base.fetchAll(sql, reading: read)
    }

    func fetchOne(_ sql: SQL) throws(StorageError) -> Row? {
        statements.append(sql)
        return try base.fetchOne(sql)
    }

    func executeScript(_ sql: SQL) throws(StorageError) {
        statements.append(sql)
        try base.executeScript(sql)
    }

    func prepareForMigration(lock key: Int64) throws(StorageError) {
        try base.prepareForMigration(lock: key)
    }
}

/// The lists that must cost the same at any size read through an index, not a scan. Each
/// store method runs for real on a migrated database; SQLite then explains the statements
/// it sent, so a change to a store's SQL (or to the schema) that loses the index fails here.
final class QueryPlanTests: XCTestCase {
    private var temp: TemporarySQLite!

    override func setUpWithError() throws {
        temp = try TemporarySQLite(migrated: true)
    }

    override func tearDown() {
        temp = nil
    }

    /// Runs `body` on a recording connection; answers the query plan of each statement it sent.
    private func plans(_ body: (any DatabaseConnection) throws -> Void) throws -> [String] {
        try temp.database.write { connection in
            let recorder = RecordingConnection(connection)
            try body(recorder)
            XCTAssertFalse(recorder.statements.isEmpty, "the store sent no statement")
            return try recorder.statements.map { statement in
                try connection.fetchAll("EXPLAIN QUERY PLAN " + statement)
                    .map { try $0.decode("detail", as: String.self) }.joined(separator: "; ")
            }
        }
    }

    private let page: (createdAt: Int64, id: String) = (1, "x")

    /// Users with these ids, their seqs 1, 2, ... in order.
    private func insertUsers(_ ids: String...) throws {
        try temp.database.write { c in
            for (seq, id) in ids.enumerated() {
                try c.execute("""
                    INSERT INTO users (seq, id, username, username_key, email, email_key, display_name, password_hash, created_at, updated_at)
                    VALUES (\(seq + 1), \(id), \(id), \(id), \(id + "@example.com"), \(id + "@example.com"), \(id), 'x', 0, 0)
                    """)
            }
        }
    }

    func testFollowersListReadsThroughTheFollowersIndex() throws {
        let plan = try plans { c in
            _ = try ActivityStore().follows(.followers, userID: "u", after: page, limit: 20, on: c)
        }.joined(separator: " | ")
        XCTAssertTrue(plan.contains("activities_followers"), plan)
        XCTAssertFalse(plan.contains("TEMP B-TREE"), plan)
    }

    func testNewsFeedReadsThroughItsIndex() throws {
        let reader = Accounts.Identity(userID: "u", userSeq: 1, role: .user, sessionKey: "k")
        let plan = try plans { c in
            _ = try FeedStore().news(readerID: "u", viewer: Presenter(reader, c).viewer, after: page, limit: 20,
                                     selecting: Presenter.activitySelection(for: reader), on: c)
        }.joined(separator: " | ")
        XCTAssertTrue(plan.contains("activities_to_recent"), plan)
        XCTAssertFalse(plan.contains("TEMP B-TREE"), plan)
    }

    /// The home feed of a reader who follows a hot account: the reader's timeline merged
    /// with a seek into the hot account's videos, both in the feed's order, so SQLite merges
    /// them lazily and a page reads about a page of rows at any depth.
    func testHomeFeedMergesHotAccountsThroughTheirIndex() throws {
        try insertUsers("u", "h")
        try temp.database.write { c in
            try c.execute("INSERT INTO activities (id, type, from_user_id, to_user_id, created_at) VALUES ('f', 4, 'u', 'h', 0)")
            try c.execute("INSERT INTO feed_hot_accounts (user_id) VALUES ('h')")
            try c.execute("INSERT INTO feed_hot_follows (user_seq, owner_id) VALUES (1, 'h')")
        }
        let reader = Accounts.Identity(userID: "u", userSeq: 1, role: .user, sessionKey: "k")
        for after in [nil, (createdAt: Int64(1), seq: Int64(1))] {
            let plans = try plans { c in
                _ = try FeedStore().home(readerSeq: 1, viewer: Presenter(reader, c).viewer, after: after, limit: 20,
                                         selecting: Presenter.videoSelection(for: reader), on: c)
            }
            XCTAssertEqual(plans.count, 2, "the hot accounts followed, then the page")
            XCTAssertTrue(plans[0].contains("SEARCH h USING PRIMARY KEY (user_seq=?)"), plans[0])
            let page = plans.last ?? ""
            XCTAssertTrue(page.contains("MERGE (UNION)"), page)
            XCTAssertTrue(page.contains("SEARCH t USING PRIMARY KEY (user_seq=?"), page)
            XCTAssertTrue(page.contains("USING COVERING INDEX videos_owner_home (owner_id=?"), page)
            XCTAssertFalse(page.contains("SCAN v ") || page.contains("SCAN t "), page)
            // The merged page is put in order in Swift: a sorter here cost every request an
            // allocation glibc gave back to the kernel.
            XCTAssertFalse(page.contains("TEMP B-TREE FOR ORDER BY"), page)
        }
    }

    /// The fan-out of a like, comment or follow looks up the author's followers: the bounded
    /// first batch and the "any left?" probe both go through the followers index.
    func testFanOutFindsFollowersThroughTheFollowersIndex() throws {
        let timelines = Timelines(configuration: .init(syncLimit: 1_000))
        let probe = try plans { c in
            try timelines.activityCreated(activityID: "a", now: 0, on: c)
        }
        XCTAssertTrue(probe.allSatisfy { $0.contains("activities_followers") }, probe.joined(separator: " | "))
        let batch = try plans { c in
            try timelines.fanOutActivity(activityID: "a", afterFollow: 0, limit: 1_000, now: 0, on: c)
        }
        XCTAssertTrue(batch.allSatisfy { $0.contains("activities_followers") }, batch.joined(separator: " | "))
    }

    /// An unfollow takes the target's activities out of the reader's following feed by primary
    /// key, found through the target's own activities: the feed has no index by actor
    /// (migration 0011), and a scan of the reader's whole feed would grow with it.
    func testUnfollowRemovesActivitiesByPrimaryKey() throws {
        try insertUsers("u", "t")
        let plans = try plans { c in
            try Timelines(configuration: .init()).unfollowed(followerID: "u", targetID: "t", on: c)
        }
        let following = plans.first { $0.contains("following_timeline") } ?? ""
        XCTAssertTrue(following.contains("SEARCH following_timeline USING PRIMARY KEY (user_seq=? AND created_at=? AND activity_seq=?)"), following)
        XCTAssertTrue(following.contains("activities_from (from_user_id=?)"), following)
        XCTAssertFalse(following.contains("SCAN"), following)
    }

    /// The bounded steps over an author's followers (by follow seq: the fan-out's first batch,
    /// its "any left?" probe, a clean-up's batch, the following notifications) read one range
    /// of `activities_followers_by_seq`, whatever order the schema lists the other indexes in:
    /// an import rebuilds them, and SQLite broke the tie between `activities_followers` and
    /// `activities_to_recent` by that order, walking everything aimed at the author.
    func testStepsOverFollowersReadOneRangeWhateverTheIndexOrder() throws {
        try insertUsers("u", "r")
        try temp.database.write { c in
            // "a": something u did (here a follow of r); "f": r follows u.
            try c.execute("INSERT INTO activities (id, type, from_user_id, to_user_id, created_at) VALUES ('a', 4, 'u', 'r', 1), ('f', 4, 'r', 'u', 0)")
        }
        let timelines = Timelines(configuration: .init(syncLimit: 1_000))
        for rebuilt in ["activities_followers", "activities_to_recent"] {
            try temp.database.write { c in
                let definition = try c.fetchValue("SELECT sql FROM sqlite_schema WHERE name = \(rebuilt)", as: String.self) ?? ""
                try c.execute(SQL(unsafeSQL: "DROP INDEX \(rebuilt)"))
                try c.execute(SQL(unsafeSQL: definition))
            }
            let plans = try plans { c in
                try timelines.fanOutActivity(activityID: "a", afterFollow: 0, limit: 1_000, now: 0, on: c)
                try timelines.removeActivity(actorID: "u", activitySeq: 1, createdAt: 1, afterFollow: 0, limit: 1_000, now: 0, on: c)
                _ = try NotificationStore().followingRecipients(activityID: "a", after: 0, limit: 1_000, on: c)
            }
            XCTAssertEqual(plans.count, 7, "each step: its batch, its rows, the probe for more; then the recipients")
            for plan in plans {
                XCTAssertTrue(plan.contains("activities_followers_by_seq (to_user_id=? AND seq>?"), "after rebuilding \(rebuilt): \(plan)")
            }
        }
    }

    /// Walking an author's followers reads only the followers indexes, never a follow's row
    /// (they carry the follower's id, migration 0013): the fan-out of a group of activities,
    /// the following notifications' "does any follower want it?" check (through the index of
    /// the users who do) and their recipients, a video's fan-out and a clean-up.
    func testFollowerWalksReadNoFollowRow() throws {
        try insertUsers("u", "r", "v")
        try temp.database.write { c in
            try c.execute("INSERT INTO activities (id, type, from_user_id, to_user_id, created_at) VALUES ('a', 4, 'u', 'v', 1), ('f', 4, 'r', 'u', 0)")
        }
        let timelines = Timelines(configuration: .init(syncLimit: 1_000))
        let notify = try XCTUnwrap(try Notifier(configuration: .init(), clock: SystemClock()).jobs().groupHandlers[FollowersNotice.kind])
        let job = OutboxJob(seq: 1, kind: FollowersNotice.kind, payload: #"{"activity":"a","after":0,"push":false}"#, attempts: 1)
        let plans = try plans { c in
            _ = try timelines.fanOutActivities(["a"], maxFollowers: 1_000, on: c)
            try notify([job], c)
            _ = try NotificationStore().followingRecipients(activityID: "a", after: 0, limit: 1_000, on: c)
            try timelines.removeActivity(actorID: "u", activitySeq: 1, createdAt: 1, afterFollow: 0, limit: 1_000, now: 0, on: c)
        }
        let walks = plans.filter { $0.contains("activities_followers") }
        XCTAssertGreaterThanOrEqual(walks.count, 4, plans.joined(separator: " | "))
        for plan in walks {
            XCTAssertTrue(plan.contains("USING COVERING INDEX activities_followers"), plan)
        }
        XCTAssertTrue(walks.contains { $0.contains("USING INDEX users_following_activity") || $0.contains("USING COVERING INDEX users_following_activity") },
                      walks.joined(separator: " | "))
    }

    /// A group of outbox jobs is recorded done by primary key, one look-up per seq: through
    /// `outbox_lane_ready` it read every done job of the lane, a cost that grew until the purge.
    func testOutboxGroupIsRecordedDoneByPrimaryKey() throws {
        let plans = try plans { c in
            _ = try Outbox().finishGroup([OutboxJob(seq: 1, kind: "k", payload: "{}", attempts: 1)], lane: .feed, now: 0, on: c)
        }
        XCTAssertEqual(plans.count, 1)
        XCTAssertTrue(plans[0].contains("SEARCH outbox USING INTEGER PRIMARY KEY (rowid=?)"), plans[0])
        XCTAssertFalse(plans[0].contains("outbox_lane_ready"), plans[0])
    }

    /// A batch of the purge of finished jobs walks the table as the single DELETE it replaced
    /// did (in seq order, stopping at the batch's size; no index leads with `state` or
    /// `finished_at`), then deletes each row by its primary key: no sort, no second scan.
    func testOutboxPurgeBatchScansOnceAndDeletesByPrimaryKey() throws {
        let plans = try plans { c in _ = try Outbox().purgeDone(before: 1, limit: 1_000, on: c) }
        XCTAssertEqual(plans.count, 1)
        XCTAssertTrue(plans[0].contains("SEARCH outbox USING INTEGER PRIMARY KEY (rowid=?)"), plans[0])
        XCTAssertEqual(plans[0].components(separatedBy: "SCAN outbox").count, 2, "one scan: \(plans[0])")
        XCTAssertFalse(plans[0].contains("TEMP B-TREE"), plans[0])
    }

    /// Marking read walks one range of the reader's inbox index, bounded below by the newest
    /// read row (itself found down the same index): no index of unread rows since 0015, and
    /// no scan of the reader's whole inbox.
    func testMarkingReadWalksTheInboxBetweenTheNewestReadRowAndTheOneNamed() throws {
        try insertUsers("u")
        try temp.database.write { c in
            try c.execute("""
                INSERT INTO notifications (id, user_id, kind, actor_id, about_me, created_at) VALUES ('n', 'u', 'new_video', 'u', 0, 0)
                """)
        }
        let plans = try plans { c in
            XCTAssertTrue(try NotificationStore().markRead(recipientID: "u", upTo: "n", now: 1, on: c))
        }
        XCTAssertEqual(plans.count, 2)
        let update = plans[1]
        XCTAssertTrue(update.contains("SEARCH notifications USING INDEX notifications_inbox (user_id=? AND seq>? AND seq<?)"), update)
        XCTAssertTrue(update.contains("SEARCH r USING INDEX notifications_inbox (user_id=? AND seq<?)"), update)
        XCTAssertFalse(update.contains("SCAN"), update)
    }
}
