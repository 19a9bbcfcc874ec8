import Auth
import Crypto
import CloudHooks
import JSON
import Storage
import Telemetry
import VideoRegistry

/// The moderation alert webhook (`serve --moderation-webhook-url`, API.md "Announcements and
/// alerts"): the first flag on a video, each automatic hide and each ban are queued as an
/// outbox job of the `push` lane inside the write's own transaction, so an alert goes out if
/// and only if the flag, the hide or the ban committed; `PushDispatcher` POSTs it, signed
/// like the push webhook, with the lane's retries and dead letters. The payloads' shapes are
/// in docs/deployment.md "Moderation alerts".
///
/// The job's payload is the body sent, built here once: every retry sends the same bytes
/// under the same `id`, which a relay uses to drop duplicates.
package struct ModerationAlerts: Sendable {
    package enum Event: String, Sendable {
        case flag
        case autoHide = "auto_hide"
        case ban
    }

    private let clock: any WallClock

    package init(clock: any WallClock) {
        self.clock = clock
    }

    /// The first flag and the bans; automatic hides come from `BuiltInHooks` (`autoHidden`),
    /// which alone knows a hide was automatic.
    package func register(on registry: HookRegistry) {
        registry.afterSave(Activity.self) { event in
            let flag = event.entity
            guard event.isInsert, flag.kind == .inappropriate, let videoID = flag.videoID else { return }
            let flags = try event.connection.fetchValue(
                "SELECT COUNT(*) FROM activities WHERE video_id = \(videoID) AND type = \(ActivityKind.inappropriate.sql)", as: Int.self) ?? 0
            guard flags == 1, let video = try VideoStore().find(id: videoID, on: event.connection) else { return }
            try enqueue(.flag, [
                "video": Self.video(video, flags: flags),
                "flag": .object(["id": .string(flag.id), "userId": .string(flag.fromUserID), "reason": flag.content.map(JSONValue.string) ?? .null]),
            ], at: flag.createdAt, on: event.connection)
        }
        registry.afterSave(Account.self) { event in
            guard let previous = event.previous, !previous.isBanned, let bannedAt = event.entity.bannedAt else { return }
            let reason = try event.connection.fetchValue("SELECT ban_reason FROM users WHERE id = \(event.entity.id)", as: String?.self) ?? nil
            try enqueue(.ban, [
                "user": .object(["id": .string(event.entity.id), "username": .string(event.entity.username), "role": .string(previous.role.rawValue)]),
                "reason": reason.map(JSONValue.string) ?? .null,
            ], at: bannedAt, on: event.connection)
        }
    }

    /// A video hidden by its flags (`BuiltInHooks`, inside the flag's transaction).
    package func autoHidden(_ video: Video, flags: Int, at now: Int64, on connection: any DatabaseConnection) throws {
        try enqueue(.autoHide, ["video": Self.video(video, flags: flags)], at: now, on: connection)
    }

    private func enqueue(_ event: Event, _ fields: [String: JSONValue], at time: Int64, on connection: any DatabaseConnection) throws {
        var body = fields
        let id = try SecureRandom.alphanumericID(length: 16)
        body["id"] = .string(id)
        body["event"] = .string(event.rawValue)
        body["createdAt"] = .string(ISO8601Millis.format(millisecondsSince1970: time))
        try ModerationAlert(body: body).enqueue(idempotencyKey: "moderation:\(id)", now: clock.nowMillis(), on: connection)
    }

    private static func video(_ video: Video, flags: Int) -> JSONValue {
        .object([
            "id": .string(video.id), "title": .string(video.title), "ownerId": .string(video.ownerID),
            "rallyId": .string(video.rallyID), "flagsCount": .int(Int64(flags)), "hidden": .bool(video.hidden),
        ])
    }
}

/// One alert to the moderation webhook (`push` lane): its body, built when it was queued, is
/// what the webhook receives, as is; `id` its idempotency key there.
package struct ModerationAlert: OutboxJobKind, Equatable {
    package static let kind = "push.moderation"
    package static let lane = OutboxLane.push
    package var body: [String: JSONValue]

    package var payload: [String: JSONValue] { body }
    package var id: String { body["id"]?.stringValue ?? "" }
    package init(body: [String: JSONValue]) {
        self.body = body
    }
    package init(_ input: JobInput) throws {
        _ = try input.string("id")
        self.init(body: input.fields)
    }
}
