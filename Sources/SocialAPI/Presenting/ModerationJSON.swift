import Community
import Delivery
import CloudHooks
import JSON

/// An item of `GET /v1/moderation/queue`: the video, how often and why it was flagged, and
/// by whom (`flags`: the newest 20, each with its user).
struct QueueItemJSON: JSONEncodable {
    struct Flag: JSONEncodable {
        let user: UserJSON?
        let reason: String?
        let createdAt: Int64

        func encode(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.field("user", user)
            writer.field("reason", reason)
            writer.field("createdAt", timestampMillis: createdAt)
            writer.endObject()
        }
    }

    let video: VideoJSON
    let flags: [Flag]

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("video", video)
        writer.field("flagsCount", video.video.flagsCount)
        writer.key("lastFlaggedAt")
        if let last = flags.first { writer.timestamp(millisecondsSince1970: last.createdAt) } else { writer.null() }
        writer.key("reasons")
        writer.writeArray(flags.compactMap(\.reason)) { writer, reason in writer.value(reason) }
        writer.field("flags", array: flags)
        writer.endObject()
    }
}

/// An entry of `GET /v1/moderation/log`: `actor` is null for automatic actions (and for a
/// moderator whose account is gone).
struct LogEntryJSON: JSONEncodable {
    let entry: ModerationLogEntry
    let actor: UserJSON?

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", entry.id)
        writer.field("actor", actor)
        writer.field("action", entry.action.rawValue)
        writer.key("target")
        writer.beginObject()
        writer.field("type", entry.targetType.rawValue)
        writer.field("id", entry.targetID)
        writer.endObject()
        writer.field("reason", entry.reason)
        writer.field("createdAt", timestampMillis: entry.createdAt)
        writer.endObject()
    }
}

/// A dead letter of the outbox (`GET /v1/moderation/outbox/dead`), for an admin to retry.
struct OutboxEntryJSON: JSONEncodable {
    let entry: OutboxEntry

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("seq", entry.seq)
        writer.field("lane", entry.lane)
        writer.field("kind", entry.kind)
        writer.field("state", entry.state.rawValue)
        writer.field("attempts", entry.attempts)
        writer.field("lastError", entry.lastError)
        writer.field("availableAt", timestampMillis: entry.availableAt)
        writer.field("createdAt", timestampMillis: entry.createdAt)
        writer.endObject()
    }
}
