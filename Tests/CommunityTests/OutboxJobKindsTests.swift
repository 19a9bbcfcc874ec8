@testable import CloudHooks
@testable import Community
import JSON
import Storage
import Telemetry
import TestSupport
import Testing

/// Every kind of outbox job the domain queues: its payload reads back as what was written, the
/// kinds are unique, each lane's table is built from them, and a kind handled twice is a
/// start-up failure rather than a silent choice (issue 44).
@Suite struct OutboxJobKindsTests {
    /// `job` through the outbox's text and back.
    func roundTrip<Kind: OutboxJobKind & Equatable>(_ job: Kind) throws -> Kind {
        try Kind.decode(OutboxJob(seq: 1, kind: Kind.kind, payload: JobInput.encode(job.payload), attempts: 0))
    }

    @Test func everyPayloadReadsBackAsWritten() throws {
        #expect(try roundTrip(HomeFanOut(videoID: "v1", after: 7)) == HomeFanOut(videoID: "v1", after: 7))
        #expect(try roundTrip(FollowingFanOut(activityID: "a1", after: 0)) == FollowingFanOut(activityID: "a1", after: 0))
        #expect(try roundTrip(FollowingCleanup(actorID: "u", activitySeq: 42, createdAt: 1_400_000_000_000, after: 3))
                == FollowingCleanup(actorID: "u", activitySeq: 42, createdAt: 1_400_000_000_000, after: 3))
        #expect(try roundTrip(HomeBackfill(followerID: "f", targetID: "t", beforeTime: 9, beforeSeq: 8))
                == HomeBackfill(followerID: "f", targetID: "t", beforeTime: 9, beforeSeq: 8))
        #expect(try roundTrip(NewVideoBroadcast(videoID: "v", after: 5)) == NewVideoBroadcast(videoID: "v", after: 5))
        #expect(try roundTrip(FollowersNotice(activityID: "a", after: 2, push: true)) == FollowersNotice(activityID: "a", after: 2, push: true))
        #expect(try roundTrip(DeviceDelivery(notificationID: "n", installationID: "i")) == DeviceDelivery(notificationID: "n", installationID: "i"))
        #expect(try roundTrip(WebhookNotice(notificationID: "n")) == WebhookNotice(notificationID: "n"))
        #expect(try roundTrip(AnnouncementBatch(announcementID: "x", after: 2_000)) == AnnouncementBatch(announcementID: "x", after: 2_000))
        let alert = ModerationAlert(body: ["id": .string("m1"), "event": .string("flag")])
        #expect(try roundTrip(alert) == alert && alert.id == "m1")
        let mail = AccountMailJob.identityLinked(userID: "u", provider: .apple)
        #expect(try roundTrip(mail) == mail)
    }

    /// A clean-up queued before the kinds were typed named the activity's seq `activity`.
    @Test func aCleanupQueuedByAnOlderServerStillReads() throws {
        let old = OutboxJob(seq: 1, kind: FollowingCleanup.kind, payload: #"{"actor":"u","activity":42,"createdAt":5,"after":0}"#, attempts: 0)
        #expect(try FollowingCleanup.decode(old) == FollowingCleanup(actorID: "u", activitySeq: 42, createdAt: 5, after: 0))
    }

    @Test func aJobOfAnotherKindOrWithAMissingMemberIsRefused() {
        #expect(throws: JobInput.Malformed.self) {
            try HomeFanOut.decode(OutboxJob(seq: 1, kind: FollowingFanOut.kind, payload: #"{"video":"v","after":0}"#, attempts: 0))
        }
        #expect(throws: JobInput.Malformed.self) {
            try FollowersNotice.decode(OutboxJob(seq: 1, kind: FollowersNotice.kind, payload: #"{"activity":"a","after":0}"#, attempts: 0))
        }
    }

    @Test func theKindsAreUniqueAndEachLanesTableIsBuiltFromThem() throws {
        let kinds = [HomeFanOut.kind, FollowingFanOut.kind, FollowingCleanup.kind, HomeBackfill.kind, NewVideoBroadcast.kind,
                     FollowersNotice.kind, DeviceDelivery.kind, WebhookNotice.kind, AnnouncementBatch.kind, ModerationAlert.kind, AccountMailJob.kind]
        #expect(Set(kinds).count == kinds.count)
        let feed = try Timelines(configuration: .init()).jobs(clock: SystemClock())
        #expect(Set(feed.handlers.keys) == [HomeFanOut.kind, FollowingFanOut.kind, FollowingCleanup.kind, HomeBackfill.kind])
        #expect(Set(feed.groupHandlers.keys) == [FollowingFanOut.kind])
        let notifier = Notifier(configuration: .init(), clock: SystemClock())
        let notify = try notifier.jobs().merging(try Announcements(database: try TemporaryDatabase(migrated: true).database, notifier: notifier,
                                                                    clock: SystemClock()).jobs())
        #expect(Set(notify.handlers.keys) == [NewVideoBroadcast.kind, FollowersNotice.kind, AnnouncementBatch.kind])
        // The same kind twice, in one table or across two merged: refused.
        #expect(throws: DuplicateJobKind.self) { try notify.merging(try notifier.jobs()) }
        var table = OutboxJobTable()
        try table.on(HomeFanOut.self) { _, _ in }
        #expect(throws: DuplicateJobKind.self) { try table.on(HomeFanOut.self) { _, _ in } }
    }
}
