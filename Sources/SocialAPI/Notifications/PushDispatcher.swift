import CloudHooks
import Crypto
import JSON
import Storage
import Telemetry

/// Delivers the `push` lane's jobs (queued by `Notifier`) through the configured providers;
/// the `DeliveryWorker` around it leases, retries and records.
///
/// Each batch: one read transaction loads every job's notification, device and words; the
/// messages go to their platform's provider side by side (HTTP/2); a device the service
/// reports gone is deleted; every job gets its result. The message id, which APNs and the
/// webhook use to drop duplicates, is derived from the job, so a retry or a redelivery after
/// a crash carries the same one.
struct PushDispatcher: Sendable {
    let database: any Database
    let providers: [PushPlatform: any PushProvider]
    let webhook: (any PushProvider)?
    let clock: any Clock
    let metrics: MetricsRegistry

    /// A job made ready to send, or already settled without sending.
    private enum Preparation {
        case ready(Prepared)
        case settled(DeliveryResult)
    }

    private struct Prepared {
        let index: Int
        let message: PushMessage
        let installationID: String?
        let createdAt: Int64
    }

    func deliver(_ jobs: [OutboxJob]) -> [DeliveryResult] {
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
        for group in Dictionary(grouping: ready, by: { $0.installationID == nil ? "webhook" : $0.message.platform.rawValue }) {
            guard let provider = group.key == "webhook" ? webhook : PushPlatform(rawValue: group.key).flatMap({ providers[$0] }) else {
                for prepared in group.value { results[prepared.index] = .skipped("no \(group.key) provider configured") }
                continue
            }
            let outcomes = provider.send(group.value.map(\.message))
            let now = clock.nowMillis()
            for (prepared, outcome) in zip(group.value, outcomes) {
                results[prepared.index] = result(of: outcome, now: now)
                if outcome == .tokenGone, let id = prepared.installationID { gone.append(id) }
                record(outcome, provider: provider.name, latencyMillis: now - prepared.createdAt)
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

    private func result(of outcome: PushOutcome, now: Int64) -> DeliveryResult {
        switch outcome {
        case .delivered: return .delivered
        case .tokenGone: return .skipped("device token gone; installation removed")
        case .retry(let seconds): return .retry("push service busy or unreachable", notBeforeMillis: seconds.map { now + Int64($0) * 1_000 })
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
        guard let input = try? JobInput(job), let notificationID = try? input.string("n") else {
            return .settled(.failed("malformed payload"))
        }
        let installationID = try? input.string("i")
        if job.kind == Notifier.JobKind.device, installationID == nil { return .settled(.failed("malformed payload")) }
        guard let row = try connection.fetchOne(Self.load(notificationID: notificationID, installationID: installationID)) else {
            return .settled(.skipped("the notification or the device is gone"))
        }
        var reader = RowReader(row)
        let kind = try PushText.Kind(rawValue: reader.next()).orThrow(column: "kind", expected: "a notification kind")
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

        var data = ["kind": kind.rawValue, "notificationId": notificationID, "userId": actorID]
        if let videoID { data["videoId"] = videoID }
        let body = PushText.body(kind, actor: actor, aboutMe: aboutMe, target: target, videoTitle: title, comment: comment, locale: locale)
        let messageID = Self.messageID(job.kind, notificationID, installationID ?? "")
        guard let installationID else {
            // The webhook: the operator's relay gets the recipient too, and the English words.
            data["recipientId"] = recipientID
            return .ready(Prepared(index: index, message: PushMessage(id: messageID, platform: .ios, deviceToken: "", body: body, badge: badge, data: data),
                                     installationID: nil, createdAt: createdAt))
        }
        guard let platform = platform.flatMap(PushPlatform.init(rawValue:)), let token else {
            return .settled(.skipped("the device is gone"))
        }
        // Repeated likes of one video replace each other on the lock screen.
        let collapse = kind == .like ? videoID.map { "like-\($0)" } : nil
        return .ready(Prepared(
            index: index,
            message: PushMessage(id: messageID, platform: platform, deviceToken: token, body: body, badge: badge, collapseID: collapse, data: data),
            installationID: installationID, createdAt: createdAt))
    }

    /// Everything one delivery needs, in one statement. The device must still belong to the
    /// recipient: a token registered since by another account is not sent someone else's news.
    private static func load(notificationID: String, installationID: String?) -> SQL {
        let device: SQL = installationID.map { "JOIN installations i ON i.id = \($0) AND i.user_id = n.user_id" }
            ?? "LEFT JOIN installations i ON 1 = 0"
        return """
            SELECT n.kind, n.about_me, n.created_at, n.video_id, n.actor_id, actor.display_name, target.display_name,
                   v.title, a.content, n.user_id, r.unread_notifications, i.platform, i.device_token, i.locale
            FROM notifications n
            JOIN users actor ON actor.id = n.actor_id
            JOIN users r ON r.id = n.user_id
            \(device)
            LEFT JOIN activities a ON a.id = n.activity_id
            LEFT JOIN users target ON target.id = a.to_user_id AND n.about_me = 0
            LEFT JOIN videos v ON v.id = n.video_id
            WHERE n.id = \(notificationID)
            """
    }

    /// A UUID-shaped id (what `apns-id` requires) derived from the job's identity.
    static func messageID(_ parts: String...) -> String {
        let hex = Hex.encode(SHA256.hash(parts.joined(separator: "|")).prefix(16))
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }
}
