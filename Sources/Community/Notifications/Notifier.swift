import Auth
import CloudHooks
import JSON
import Storage
import Telemetry
import VideoRegistry

/// Who hears about what (API.md "Notifications"), as after-save hooks that write only to the
/// database, inside the write's transaction: inbox rows and outbox jobs. Nothing here reaches
/// the network; `PushDispatcher` delivers the jobs later, so a write that rolls back sends
/// nothing and a crash loses nothing.
///
/// - A like, comment or follow aimed at someone else: that person, when `myActivity` is on:
///   one inbox row and a delivery per device, inside the request (a handful of rows).
/// - The same, to the followers of its author who have `followingActivity` on (but not the
///   person it is aimed at): by the `notify` lane's worker, a batch of followers per job, so
///   an account with many followers costs a bounded amount per request.
/// - A new video: every user with `newVideos` on but the uploader, by the `notify` lane in
///   batches, never a row per user inside the upload.
/// - Flags: never. Undoing (an unlike, a deleted comment or video) removes the notifications
///   with the content (`ON DELETE CASCADE`); a delivery queued for one finds it gone and is
///   skipped.
/// - A like, unlike and like again within `likeRepeatMillis` pushes once (the inbox still
///   shows the last like).
package struct Notifier: Sendable {
    package struct Configuration: Sendable {
        package init() {}

        /// Platforms with a push provider configured; deliveries are queued for these only
        /// (the inbox gets every notification regardless).
        package var platforms: Set<PushPlatform> = []
        /// Whether every notification is also POSTed to the operator's webhook.
        package var webhook = false
        package var likeRepeatMillis: Int64 = 60_000
        /// Recipients per `notify` job.
        package var batchSize = NotificationStore.batchSize

        /// Whether anything is ever pushed: a provider or the webhook is configured.
        package var pushes: Bool { !platforms.isEmpty || webhook }
    }

    package let configuration: Configuration
    package let clock: any WallClock
    private let store = NotificationStore()
    private let outbox = Outbox()

    package init(configuration: Configuration, clock: any WallClock) {
        self.configuration = configuration
        self.clock = clock
    }

    package func register(on registry: HookRegistry) {
        registry.afterSave(Activity.self) { event in
            guard event.isInsert, let kind = NotificationKind(event.entity.kind) else { return }
            try activityCreated(event.entity, kind: kind, on: event.connection)
        }
        registry.afterSave(Video.self) { event in
            guard event.isInsert, !event.entity.hidden else { return }
            try NewVideoBroadcast(videoID: event.entity.id, after: 0).enqueue(now: clock.nowMillis(), on: event.connection)
        }
    }

    private func activityCreated(_ activity: Activity, kind: NotificationKind, on connection: any DatabaseConnection) throws {
        let now = clock.nowMillis()
        let wants = try connection.fetchValue("""
            SELECT notify_my_activity FROM users WHERE id = \(activity.toUserID) AND banned_at IS NULL
            """, as: Bool.self) ?? false
        if activity.toUserID != activity.fromUserID, wants {
            let seq = try store.insert(kind: kind, to: activity.toUserID, actorID: activity.fromUserID, activityID: activity.id,
                                       videoID: activity.videoID, now: now, on: connection)
            if try mayPush(kind, key: "like|\(activity.fromUserID)|\(activity.videoID ?? "")|\(activity.toUserID)", now: now, on: connection) {
                try queueDeliveries(seqs: seq...seq, now: now, on: connection)
            }
        }
        if try someFollowerMayWant(activity, on: connection) {
            let push = try mayPush(kind, key: "following-like|\(activity.fromUserID)|\(activity.videoID ?? "")", now: now, on: connection)
            try FollowersNotice(activityID: activity.id, after: 0, push: push).enqueue(now: clock.nowMillis(), on: connection)
        }
    }

    /// Whether `activity` needs a `notify.following` job: false only when it is certain that
    /// no follower of its author wants to hear of it. `followingActivity` is off by default,
    /// so the users who turned it on are usually few: up to `wantingProbed` of them are each
    /// checked for following the author (two index probes each, none when nobody wants it),
    /// and past that the job is queued and its group's check decides, as before. Every like
    /// and comment used to queue one: an outbox row and its indexes written in the request,
    /// and a job to lease and finish (comments +13 to 32% on small without it, BENCHMARKS.md).
    private func someFollowerMayWant(_ activity: Activity, on connection: any DatabaseConnection) throws -> Bool {
        // SQLite has no statistics to choose the small partial index by itself.
        let wantingIndex: SQL = connection.dialect == .sqlite ? "INDEXED BY users_following_activity" : ""
        let row = try connection.fetchOne("""
            WITH wanting AS (
                SELECT id FROM users \(wantingIndex)
                WHERE notify_following_activity = TRUE AND banned_at IS NULL AND id <> \(activity.toUserID)
                LIMIT \(Self.wantingProbed + 1))
            SELECT (SELECT followers_count > 0 FROM users WHERE id = \(activity.fromUserID)) AS followed,
                   (SELECT COUNT(*) FROM wanting) AS wanting,
                   EXISTS (SELECT 1 FROM wanting w JOIN activities f ON f.from_user_id = w.id
                           WHERE f.to_user_id = \(activity.fromUserID) AND f.type = \(ActivityKind.follow.sql)) AS follows
            """)
        guard let row, try row.decode("followed", as: Bool?.self) == true else { return false }
        return try row.decode("wanting", as: Int.self) > Self.wantingProbed || row.decode("follows", as: Bool.self)
    }

    /// How many users who want their followees' activities a like or a comment checks itself.
    package static let wantingProbed = 64

    /// Whether a notification of `kind` may push: never on a server that pushes nothing (so
    /// no like claims a `push_recent` row there: two writes per like saved), anything but a
    /// like always, a like unless the same one pushed within `likeRepeatMillis` (claimed here
    /// when it may; `key` is built only then).
    private func mayPush(_ kind: NotificationKind, key: @autoclosure () -> String, now: Int64, on connection: any DatabaseConnection) throws -> Bool {
        guard configuration.pushes else { return false }
        guard kind == .like else { return true }
        return try store.claimPush(key: key(), since: now - configuration.likeRepeatMillis, now: now, on: connection)
    }

    // MARK: The notify lane

    /// The notify lane's jobs (`NotifyJobs.swift`), and the `notify.following` jobs of a group
    /// at once (`OutboxWorker.GroupHandler`): one statement finds the new activities (`after`
    /// 0) some follower of whose author wants to hear of them, and only those run as single
    /// jobs. Most followers leave `followingActivity` off, so most jobs (every comment and like
    /// has one) end with that statement instead of a look-up and a followers' scan each. SQLite
    /// only (`json_each`; the followers index named, as in `Timelines.fanOutActivities`, and
    /// the small index of the users who want these, so that no follower's row is read:
    /// migration 0013).
    package func jobs() throws -> OutboxJobTable {
        var table = OutboxJobTable()
        try table.on(NewVideoBroadcast.self) { job, connection in
            try broadcastNewVideo(videoID: job.videoID, after: job.after, on: connection)
        }
        let notify: @Sendable (FollowersNotice, any DatabaseConnection) throws -> Void = { job, connection in
            try notifyFollowers(activityID: job.activityID, after: job.after, push: job.push, on: connection)
        }
        try table.on(FollowersNotice.self, notify)
        try table.onGroups(FollowersNotice.self) { jobs, connection in
            var fresh: [String: (job: OutboxJob, input: FollowersNotice)] = [:], run: [(job: OutboxJob, input: FollowersNotice)] = []
            for entry in jobs {
                if entry.input.after == 0 { fresh[entry.input.activityID] = entry } else { run.append(entry) }
            }
            let heard = try connection.fetchAll("""
                SELECT a.id FROM activities a
                WHERE a.id IN (SELECT value FROM json_each(\(JSONValue.arrayText(Array(fresh.keys)))))
                  AND EXISTS (
                    SELECT 1 FROM activities f INDEXED BY activities_followers
                    JOIN users r INDEXED BY users_following_activity ON r.id = f.from_user_id
                    WHERE f.to_user_id = a.from_user_id AND f.type = \(ActivityKind.follow.sql)
                      AND r.id <> a.to_user_id AND r.banned_at IS NULL AND r.notify_following_activity = TRUE)
                """).map { try $0.decode("id", as: String.self) }
            run += heard.compactMap { fresh[$0] }
            for entry in run.sorted(by: { $0.job.seq < $1.job.seq }) { try notify(entry.input, connection) }
        }
        return table
    }

    /// One batch of a new video's broadcast; the next batch is another job.
    private func broadcastNewVideo(videoID: String, after: Int64, on connection: any DatabaseConnection) throws {
        guard let ownerID = try connection.fetchValue("SELECT owner_id FROM videos WHERE id = \(videoID) AND hidden = FALSE", as: String.self) else {
            return  // deleted or hidden since: nobody hears of it
        }
        let now = clock.nowMillis()
        let batch = try store.newVideoRecipients(videoID: videoID, after: after, limit: configuration.batchSize, on: connection)
        if let seqs = try store.insert(kind: .newVideo, to: batch.ids, actorID: ownerID, activityID: nil, videoID: videoID, now: now, on: connection) {
            try queueDeliveries(seqs: seqs, now: now, on: connection)
        }
        if batch.ids.count == configuration.batchSize, let last = batch.last {
            try NewVideoBroadcast(videoID: videoID, after: last).enqueue(now: now, on: connection)
        }
    }

    /// One batch of an activity's author's followers; the next batch is another job.
    private func notifyFollowers(activityID: String, after: Int64, push: Bool, on connection: any DatabaseConnection) throws {
        guard let activity = try ActivityStore().find(id: activityID, on: connection), let kind = NotificationKind(activity.kind) else {
            return  // undone since: nobody hears of it
        }
        let now = clock.nowMillis()
        let batch = try store.followingRecipients(activityID: activityID, after: after, limit: configuration.batchSize, on: connection)
        if let seqs = try store.insert(kind: kind, to: batch.ids, actorID: activity.fromUserID, activityID: activity.id,
                                       videoID: activity.videoID, now: now, on: connection), push {
            try queueDeliveries(seqs: seqs, now: now, on: connection)
        }
        if batch.full, let last = batch.last {
            try FollowersNotice(activityID: activityID, after: last, push: push).enqueue(now: now, on: connection)
        }
    }

    // MARK: Deliveries

    /// Queues the deliveries of the notifications whose seq is in `seqs`: one per device of a
    /// configured platform, one to the webhook. Idempotency keys make a repeat a no-op.
    package func queueDeliveries(seqs: ClosedRange<Int64>, now: Int64, on connection: any DatabaseConnection) throws {
        if !configuration.platforms.isEmpty {
            let platforms = SQL.joined(configuration.platforms.sorted { $0.rawValue < $1.rawValue }.map { "\($0.rawValue)" }, separator: ", ")
            try outbox.enqueue(
                kind: DeviceDelivery.kind, payload: DeviceDelivery.payloadSQL(for: connection.dialect),
                idempotencyKey: "'push:' || n.id || ':' || i.id", lane: .push, from: """
                    FROM notifications n JOIN installations i ON i.user_id = n.user_id
                    WHERE n.seq BETWEEN \(seqs.lowerBound) AND \(seqs.upperBound) AND i.platform IN (\(platforms))
                    """, now: now, on: connection)
        }
        if configuration.webhook {
            try outbox.enqueue(
                kind: WebhookNotice.kind, payload: WebhookNotice.payloadSQL(for: connection.dialect), idempotencyKey: "'webhook:' || n.id",
                lane: .push, from: "FROM notifications n WHERE n.seq BETWEEN \(seqs.lowerBound) AND \(seqs.upperBound)",
                now: now, on: connection)
        }
    }
}
