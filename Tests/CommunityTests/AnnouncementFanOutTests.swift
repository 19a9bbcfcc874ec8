import Dispatch
import Foundation
import CloudHooks
import Storage
import Telemetry
import Testing
import TestSupport
@testable import Auth
@testable import Community

/// An announcement's fan-out as the notify lane runs it, on both databases: 20,000 users get
/// one inbox row each and each device one delivery job, in bounded batches, within the issue's
/// 10 s; two workers racing for it (PostgreSQL: both lease, both run) still send it once;
/// cancelled before its time, it sends nothing.
struct AnnouncementFanOutTests {
    static let users = 20_000

    /// `count` users (`u1`…) with an iOS device each, and an admin `admin`.
    static func seed(_ db: DialectDatabase, users count: Int) throws {
        try db.database.write { c in
            try c.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO users (id, username, username_key, email, email_key, display_name, password_hash, created_at, updated_at)
                SELECT 'u' || CAST(i AS TEXT), 'u' || CAST(i AS TEXT), 'u' || CAST(i AS TEXT), 'u' || CAST(i AS TEXT) || '@example.com',
                       'u' || CAST(i AS TEXT) || '@example.com', 'U', 'x', 0, 0 FROM n
                """)
            try c.execute("""
                INSERT INTO installations (id, user_id, platform, device_token, locale, created_at, updated_at)
                SELECT 'i' || id, id, 'ios', 'aa' || id, NULL, 0, 0 FROM users
                """)
            try c.execute("""
                INSERT INTO users (id, username, username_key, email, email_key, display_name, password_hash, role, created_at, updated_at)
                VALUES ('admin', 'admin', 'admin', 'a@example.com', 'a@example.com', 'Admin', 'x', 'admin', 0, 0)
                """)
        }
    }

    static func worker(_ db: DialectDatabase, _ announcements: Announcements) throws -> OutboxWorker {
        var lane = OutboxWorker.Configuration()
        lane.lane = .notify
        return OutboxWorker(database: db.database, jobs: try announcements.jobs(), configuration: lane)
    }

    static func announcements(_ db: DialectDatabase) -> Announcements {
        var configuration = Notifier.Configuration()
        configuration.platforms = [.ios]
        return Announcements(database: db.database, notifier: Notifier(configuration: configuration, clock: SystemClock()), clock: SystemClock())
    }

    static let draft = AnnouncementDraft(title: LocalizedText(en: "Season opener", es: "Arranca"), body: LocalizedText(en: "Thursday", es: nil),
                                         audience: .everyone, sendAt: nil)

    @Test(arguments: DialectDatabase.dialects)
    func twentyThousandInboxesInBoundedBatchesWithinTenSeconds(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        try Self.seed(db, users: Self.users)
        let announcements = Self.announcements(db)
        let worker = try Self.worker(db, announcements)
        let announcement = try announcements.create(Self.draft, createdBy: "admin")
        let started = ContinuousClock.now
        var passes = 0
        while try worker.runDueJobs(idle: true) > 0 { passes += 1 }
        let elapsed = ContinuousClock.now - started
        print("announcement fan-out (\(dialect)): \(Self.users + 1) inboxes and their deliveries in \(elapsed), \(passes) passes")
        #expect(elapsed < .seconds(10))
        #expect(try db.count("SELECT COUNT(*) FROM notifications WHERE announcement_id = \(announcement.id)") == Self.users + 1)
        #expect(try db.count("SELECT COUNT(*) FROM outbox WHERE lane = 'push' AND kind = 'push.device'") == Self.users)
        #expect(try db.count("SELECT COUNT(*) FROM announcements WHERE sent_at IS NOT NULL") == 1)
        #expect(try db.count("SELECT MAX(unread_notifications) FROM users") == 1, "the badge counts it once")
        #expect(try db.count("SELECT COUNT(*) FROM outbox WHERE lane = 'notify' AND state <> 'done'") == 0)
    }

    @Test(arguments: DialectDatabase.dialects)
    func twoWorkersRacingSendItOnce(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        try Self.seed(db, users: 3_000)
        let announcements = Self.announcements(db)
        let workers = [try Self.worker(db, announcements), try Self.worker(db, announcements)]
        let announcement = try announcements.create(Self.draft, createdBy: "admin")
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            var idle = 0
            while idle < 20 {
                let ran = (try? workers[index].runDueJobs()) ?? 0
                idle = ran == 0 ? idle + 1 : 0
                if ran == 0 { Thread.sleep(forTimeInterval: 0.01) }
            }
        }
        #expect(try db.count("SELECT COUNT(*) FROM notifications WHERE announcement_id = \(announcement.id)") == 3_001)
        #expect(try db.count("SELECT COUNT(*) FROM (SELECT user_id FROM notifications GROUP BY user_id HAVING COUNT(*) > 1) twice") == 0)
        #expect(try db.count("SELECT COUNT(*) FROM outbox WHERE kind = 'push.device'") == 3_000)
    }

    @Test(arguments: DialectDatabase.dialects)
    func cancelledBeforeItsTimeItSendsNothing(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        try Self.seed(db, users: 10)
        let announcements = Self.announcements(db)
        var later = Self.draft
        later.sendAt = SystemClock().nowMillis() + 60_000
        let announcement = try announcements.create(later, createdBy: "admin")
        #expect(try Self.worker(db, announcements).runDueJobs() == 0, "not due yet")
        let admin = Accounts.Identity(userID: "admin", userSeq: 11, role: .admin, sessionKey: "k")
        try announcements.cancel(id: announcement.id, by: admin)
        #expect(try db.count("SELECT COUNT(*) FROM outbox WHERE kind = 'notify.announcement'") == 0, "its job went with it")
        #expect(throws: AnnouncementError.notFound) { try announcements.cancel(id: announcement.id, by: admin) }
        let user = Accounts.Identity(userID: "u1", userSeq: 1, role: .user, sessionKey: "k")
        #expect(throws: AnnouncementError.adminsOnly) { try announcements.create(Self.draft, by: user) }
    }
}
