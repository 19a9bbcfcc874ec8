import Community
import Crypto
import CloudHooks
import JSON
import Storage
import Telemetry

/// Delivers the `push` lane's jobs (queued by `Notifier`, and the moderation alerts of
/// `ModerationAlerts`, whose payload is the body to send) through the configured providers;
/// the `DeliveryWorker` around it leases, retries and records.
///
/// Each batch: one read transaction loads every job's notification, device and words; the
/// messages go to their platform's provider side by side (HTTP/2); a device the service
/// reports gone is deleted; every job gets its result. The message id, which APNs and the
/// webhook use to drop duplicates, is derived from the job, so a retry or a redelivery after
/// a crash carries the same one.
package struct PushDispatcher: Sendable {
    package let database: any Database
    package let providers: [PushPlatform: any PushProvider]
    package let webhook: WebhookNotifier?
    /// `--moderation-webhook-url`: where `ModerationAlerts`' jobs go.
    package let moderationWebhook: WebhookNotifier?
    package let clock: any WallClock
    package let metrics: MetricsRegistry

    package init(database: any Database, providers: [PushPlatform: any PushProvider], webhook: WebhookNotifier?,
                 moderationWebhook: WebhookNotifier? = nil, clock: any WallClock, metrics: MetricsRegistry) {
        self.database = database
        self.providers = providers
        self.webhook = webhook
        self.moderationWebhook = moderationWebhook
        self.clock = clock
        self.metrics = metrics
    }

    /// A job made ready to send, or already settled without sending.
    private enum Preparation {
        case ready(Prepared)
        case settled(DeliveryResult)
    }

    private struct Prepared {
        package enum Target {
            case device(PushMessage, installationID: String)
            case webhook(WebhookDelivery)
            case moderation(WebhookDelivery)
        }
        package let index: Int
        package let target: Target
        package let createdAt: Int64
        /// The provider that sends it, by name: "ios", "android" or "webhook".
        package var lane: String {
            switch target {
            case .device(let message, _): return message.platform.rawValue
            case .webhook: return "webhook"
            case .moderation: return "moderation"
            }
        }
    }

    package func deliver(_ jobs: [OutboxJob]) -> [DeliveryResult] {
        var results = [DeliveryResult](repeating: .failed("not attempted"), count: jobs.count)
        var ready: [Prepared] = []
        do {
            try database.read { connection in
                for (index, job) in jobs.enumerated() {
                    switch try prepare(job, index: index, on: connection) {
                    case .ready(let prepared): ready.append(prepared)
                    case .settled(let result): results[index] = result
                    }
                }
            }
        } catch {
            // The database could not be read: everything is tried again later.
            return jobs.map { _ in .retry("database: \(error)") }
        }

        var gone: [String] = []
        for (lane, group) in Dictionary(grouping: ready, by: \.lane) {
            let sent = send(group, lane: lane)
            let now = clock.nowMillis()
            for (prepared, outcome) in zip(group, sent.outcomes) {
                results[prepared.index] = result(of: outcome, now: now)
                if outcome == .tokenGone, case .device(_, let installationID) = prepared.target { gone.append(installationID) }
                if let provider = sent.provider { record(outcome, provider: provider, latencyMillis: now - prepared.createdAt) }
            }
        }
        if !gone.isEmpty {
            // Failing here only means the next push to that device is refused again.
            try? database.write { connection in
                for id in gone { try Installations.forget(id: id, on: connection) }
            }
        }
        return results
    }

    /// One lane's messages through its provider; without one configured, they are skipped.
    private func send(_ group: [Prepared], lane: String) -> (provider: String?, outcomes: [PushOutcome]) {
        if lane == "moderation" {
            guard let moderationWebhook else { return (nil, group.map { _ in .failed(reason: "no moderation webhook configured") }) }
            return ("moderation-webhook", moderationWebhook.send(group.compactMap { if case .moderation(let delivery) = $0.target { delivery } else { nil } }))
        }
        if lane == "webhook" {
            guard let webhook else { return (nil, group.map { _ in .failed(reason: "no webhook configured") }) }
            return (webhook.name, webhook.send(group.compactMap { if case .webhook(let delivery) = $0.target { delivery } else { nil } }))
        }
        guard let platform = PushPlatform(rawValue: lane), let provider = providers[platform] else {
            return (nil, group.map { _ in .failed(reason: "no \(lane) provider configured") })
        }
        return (provider.name, provider.send(group.compactMap { if case .device(let message, _) = $0.target { message } else { nil } }))
    }

    private func result(of outcome: PushOutcome, now: Int64) -> DeliveryResult {
        switch outcome {
        case .delivered: return .delivered
        case .tokenGone: return .skipped("device token gone; installation removed")
        case .retry(let seconds, let reason): return .retry(reason, notBeforeMillis: seconds.map { now + Int64($0) * 1_000 })
        case .failed(let reason): return .failed(reason)
        }
    }

    private func record(_ outcome: PushOutcome, provider: String, latencyMillis: Int64) {
        let name: String
        switch outcome {
        case .delivered: name = "delivered"
        case .tokenGone: name = "token_gone"
        case .retry: name = "retry"
        case .failed: name = "failed"
        }
        metrics.counter("pacenote_push_deliveries_total", help: "Push and webhook delivery attempts, by provider and result.",
                        labels: [("provider", provider), ("result", name)]).increment()
        if outcome == .delivered {
            metrics.histogram("pacenote_push_delivery_seconds", help: "From a notification's creation to its delivery.",
                              labels: [("provider", provider)]).observe(Double(max(0, latencyMillis)) / 1_000)
        }
    }

    // MARK: Preparing

    private func prepare(_ job: OutboxJob, index: Int, on connection: any DatabaseConnection) throws -> Preparation {
        let notificationID: String, installationID: String?
        switch job.kind {
        case ModerationAlert.kind:
            // The payload is the alert's body, built when it was queued; sent as is.
            guard let alert = try? ModerationAlert.decode(job) else { return .settled(.failed("malformed payload")) }
            return .ready(Prepared(index: index, target: .moderation(WebhookDelivery(id: alert.id, body: Array(job.payload.utf8))), createdAt: clock.nowMillis()))
        case DeviceDelivery.kind:
            guard let delivery = try? DeviceDelivery.decode(job) else { return .settled(.failed("malformed payload")) }
            (notificationID, installationID) = (delivery.notificationID, delivery.installationID)
        default:
            guard let delivery = try? WebhookNotice.decode(job) else { return .settled(.failed("malformed payload")) }
            (notificationID, installationID) = (delivery.notificationID, nil)
        }
        guard let row = try connection.fetchOne(Self.load(notificationID: notificationID, installationID: installationID)) else {
            return .settled(.skipped("the notification or the device is gone"))
        }
        var reader = RowReader(row)
        let kind = try NotificationKind(rawValue: reader.next()).orThrow(column: "kind", expected: "a notification kind")
        let aboutMe: Bool = try reader.next()
        let createdAt: Int64 = try reader.next()
        let videoID: String? = try reader.next()
        let actorID: String = try reader.next()
        let actor: String = try reader.next()
        let target: String? = try reader.next()
        let title: String? = try reader.next()
        let comment: String? = try reader.next()
        let recipientID: String = try reader.next()
        let badge: Int = try reader.next()
        let platform: String? = try reader.next()
        let token: String? = try reader.next()
        let locale: String? = try reader.next()
        let announcementID: String? = try reader.next()
        let announcementTitle = LocalizedText(en: try reader.next() ?? "", es: try reader.next())
        let announcementBody = LocalizedText(en: try reader.next() ?? "", es: try reader.next())

        let messageID = Self.messageID(job.kind, notificationID, installationID ?? "")
        guard let installationID else {
            // The operator's relay gets the notification whole, once: who, what, to whom, and
            // the English words.
            let text = PushText.body(kind: kind, actorName: actor, otherName: target, videoTitle: title,
                                     commentText: kind == .announcement ? announcementBody.en : comment, locale: nil, isAboutMe: aboutMe)
            var writer = JSONWriter(capacity: 512)
            writer.beginObject()
            writer.field("id", notificationID)
            writer.field("deliveryId", messageID)
            writer.field("kind", kind.rawValue)
            writer.field("recipientId", recipientID)
            writer.field("actorId", actorID)
            writer.field("videoId", videoID)
            if let announcementID { writer.field("announcementId", announcementID) }
            writer.field("text", text)
            writer.field("badge", badge)
            writer.field("createdAt", timestampMillis: createdAt)
            writer.endObject()
            return .ready(Prepared(index: index, target: .webhook(WebhookDelivery(id: messageID, body: writer.bytes)), createdAt: createdAt))
        }
        guard let platform = platform.flatMap(PushPlatform.init(rawValue:)), let token else {
            return .settled(.skipped("the device is gone"))
        }
        var data = ["kind": kind.rawValue, "notificationId": notificationID, "userId": actorID]
        if let videoID { data["videoId"] = videoID }
        if let announcementID { data["announcementId"] = announcementID }
        let body = PushText.body(kind: kind, actorName: actor, otherName: target, videoTitle: title,
                                 commentText: kind == .announcement ? announcementBody.text(for: locale) : comment,
                                 locale: locale, isAboutMe: aboutMe)
        let pushTitle = kind == .announcement ? announcementTitle.text(for: locale) : nil
        // Repeated likes of one video replace each other on the lock screen.
        let collapse = kind == .like ? videoID.map { "like-\($0)" } : nil
        let message = PushMessage(id: messageID, platform: platform, deviceToken: token, title: pushTitle, body: body, badge: badge, collapseID: collapse, data: data)
        return .ready(Prepared(index: index, target: .device(message, installationID: installationID), createdAt: createdAt))
    }

    /// Everything one delivery needs, in one statement. The device must still belong to the
    /// recipient: a token registered since by another account is not sent someone else's news.
    /// The words follow the device's locale, else the account's (API.md User(me) `locale`).
    private static func load(notificationID: String, installationID: String?) -> SQL {
        let device: SQL = installationID.map { "JOIN installations i ON i.id = \($0) AND i.user_id = n.user_id" }
            ?? "LEFT JOIN installations i ON 1 = 0"
        return """
            SELECT n.kind, n.about_me, n.created_at, n.video_id, n.actor_id, actor.display_name, target.display_name,
                   v.title, a.content, n.user_id, r.unread_notifications, i.platform, i.device_token, COALESCE(i.locale, r.locale),
                   n.announcement_id, an.title_en, an.title_es, an.body_en, an.body_es
            FROM notifications n
            JOIN users actor ON actor.id = n.actor_id
            JOIN users r ON r.id = n.user_id
            \(device)
            LEFT JOIN activities a ON a.id = n.activity_id
            LEFT JOIN users target ON target.id = a.to_user_id AND n.about_me = FALSE
            LEFT JOIN videos v ON v.id = n.video_id
            LEFT JOIN announcements an ON an.id = n.announcement_id
            WHERE n.id = \(notificationID)
            """
    }

    /// A UUID-shaped id (what `apns-id` requires) derived from the job's identity.
    package static func messageID(_ parts: String...) -> String {
        let hex = Hex.encode(SHA256.hash(parts.joined(separator: "|")).prefix(16))
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }
}
