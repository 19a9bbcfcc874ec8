import Auth
import Crypto
import CloudHooks
import JSON
import Storage
import Telemetry
import VideoRegistry

/// Announcements (API.md "Announcements and alerts"): written by admins (or `pacenote
/// announce`), sent at their time to their audience's inboxes as kind `announcement`, and
/// pushed to their devices through the `push` lane, each reader in their locale.
///
/// The time lives in the database: creating one queues a `notify` job due at `sendAt`
/// (`Outbox.enqueue(availableAt:)`), so any server's notify worker takes it within its poll
/// interval of that time, and a restart loses nothing. The job claims the announcement
/// (`AnnouncementStore.claim`, a conditional update) in the transaction that writes its first
/// batch; every batch is one outbox job of the notify lane, run exactly once by the worker
/// (its work and its completion commit together), which queues the next. So each reader gets
/// one inbox row, across restarts and servers; a batch is one INSERT … SELECT of
/// `batchSize` rows and the deliveries of their devices in one more statement.
package struct Announcements: Sendable {
    package static let titleRule = TextRule("A title", characters: 1...100)
    package static let bodyRule = TextRule("A body", characters: 1...1_000)
    /// How far ahead one may be scheduled: a year covers a season; more is a typo.
    package static let maxLeadMillis: Int64 = 366 * 86_400_000
    /// How far back a `sendAt` may be (then it goes now): a clock a little behind is no error,
    /// a date from last year is.
    package static let maxLagMillis: Int64 = 86_400_000
    /// Recipients per batch (one outbox job each). 2,000 rows is a few milliseconds of
    /// INSERT … SELECT; 20,000 users take ten jobs.
    package static let batchSize = 2_000

    private let database: any Database
    private let notifier: Notifier
    private let clock: any WallClock
    private let store = AnnouncementStore()
    private let outbox = Outbox()

    package init(database: any Database, notifier: Notifier, clock: any WallClock) {
        self.database = database
        self.notifier = notifier
        self.clock = clock
    }

    // MARK: Admins

    /// Stores a validated announcement and schedules its sending; answers it.
    package func create(_ draft: AnnouncementDraft, by identity: Accounts.Identity) throws -> Announcement {
        guard identity.role == .admin else { throw AnnouncementError.adminsOnly }
        return try create(draft, createdBy: identity.userID)
    }

    /// `create` for `pacenote announce`, whose author is an admin account it chose.
    package func create(_ draft: AnnouncementDraft, createdBy: String) throws -> Announcement {
        let now = clock.nowMillis()
        let checked = try Self.validated(draft, now: now)
        return try database.write { connection in
            if let rallyID = checked.audience.rallyID, try RallyStore().find(id: rallyID, on: connection) == nil {
                throw AnnouncementError.validation(field: "audience", message: "audience names no rally.")
            }
            let sendAt = max(now, checked.sendAt ?? now)
            let announcement = try store.insert(id: try SecureRandom.alphanumericID(), draft: checked, sendAt: sendAt, createdBy: createdBy,
                                                now: now, on: connection)
            try AnnouncementBatch(announcementID: announcement.id, after: 0)
                .enqueue(idempotencyKey: Self.scheduleKey(announcement.id), availableAt: sendAt, now: now, on: connection)
            return announcement
        }
    }

    /// Cancels an announcement not sent yet: it and its scheduled job go. Sent (or sending):
    /// `alreadySent`.
    package func cancel(id: String, by identity: Accounts.Identity) throws {
        guard identity.role == .admin else { throw AnnouncementError.adminsOnly }
        try database.write { connection in
            guard let announcement = try store.find(id: id, on: connection) else { throw AnnouncementError.notFound }
            guard announcement.sentAt == nil, try store.deleteUnsent(id: id, on: connection) else { throw AnnouncementError.alreadySent }
            // Withdrawn if no worker holds it; one that does finds the announcement gone.
            _ = try outbox.withdraw(idempotencyKey: Self.scheduleKey(id), on: connection)
        }
    }

    /// The oldest admin's id: the author `pacenote announce` writes as, nil without an admin.
    package func defaultAuthor() throws -> String? {
        try database.read { connection in
            try connection.fetchValue("SELECT id FROM users WHERE role = 'admin' AND banned_at IS NULL ORDER BY seq LIMIT 1", as: String.self)
        }
    }

    // MARK: Rules

    /// The draft with its texts trimmed and checked, and its time within bounds.
    package static func validated(_ draft: AnnouncementDraft, now: Int64) throws(AnnouncementError) -> AnnouncementDraft {
        func text(_ value: String, _ rule: TextRule, _ field: String) throws(AnnouncementError) -> String {
            try rule.validated(value) { AnnouncementError.validation(field: field, message: $0) }
        }
        func optional(_ value: String?, _ rule: TextRule, _ field: String) throws(AnnouncementError) -> String? {
            guard let value else { return nil }
            return try text(value, rule, field)
        }
        var checked = draft
        checked.title = LocalizedText(en: try text(draft.title.en, titleRule, "title"), es: try optional(draft.title.es, titleRule, "title"))
        checked.body = LocalizedText(en: try text(draft.body.en, bodyRule, "body"), es: try optional(draft.body.es, bodyRule, "body"))
        if let sendAt = draft.sendAt {
            guard sendAt <= now + maxLeadMillis else {
                throw .validation(field: "sendAt", message: "sendAt is at most a year ahead.")
            }
            guard sendAt >= now - maxLagMillis else {
                throw .validation(field: "sendAt", message: "sendAt is in the past.")
            }
        }
        return checked
    }

    // MARK: The notify lane

    package func jobs() throws -> OutboxJobTable {
        var table = OutboxJobTable()
        try table.on(AnnouncementBatch.self) { job, connection in try send(id: job.announcementID, after: job.after, on: connection) }
        return table
    }

    /// One batch: the first (`after` 0) claims the announcement, or does nothing if it was
    /// cancelled; each writes up to `batchSize` inbox rows, queues their deliveries, and queues
    /// the next batch when this one was full.
    private func send(id: String, after: Int64, on connection: any DatabaseConnection) throws {
        let now = clock.nowMillis()
        let found = after == 0 ? try store.claim(id: id, now: now, on: connection) : try store.find(id: id, on: connection)
        guard let announcement = found else { return }  // cancelled, or (a bug) claimed twice: nothing is sent again
        guard let upTo = try store.batchEnd(audience: announcement.audience, after: after, limit: Self.batchSize, on: connection) else { return }
        if let seqs = try store.insertNotifications(announcement, after: after, upTo: upTo, now: now, on: connection) {
            try notifier.queueDeliveries(seqs: seqs, now: now, on: connection)
        }
        try AnnouncementBatch(announcementID: id, after: upTo).enqueue(idempotencyKey: "announcement:\(id):\(upTo)", now: now, on: connection)
    }

    private static func scheduleKey(_ id: String) -> String { "announcement:\(id)" }
}

/// One batch of an announcement's fan-out (`notify` lane); the first (`after` 0) claims it.
package struct AnnouncementBatch: OutboxJobKind, Equatable {
    package static let kind = "notify.announcement"
    package static let lane = OutboxLane.notify
    package var announcementID: String
    package var after: Int64

    package var payload: [String: JSONValue] { ["announcement": .string(announcementID), "after": .int(after)] }
    package init(announcementID: String, after: Int64) {
        self.announcementID = announcementID
        self.after = after
    }
    package init(_ input: JobInput) throws {
        self.init(announcementID: try input.string("announcement"), after: try input.int("after"))
    }
}
