import Community
import JSON

/// API.md Announcement: `{id, title: {en, es}, body: {en, es}, audience: "all" | {rallyId},
/// sendAt, sentAt, createdBy}` (an admin's view: both languages).
struct AnnouncementJSON: JSONEncodable {
    let announcement: Announcement

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", announcement.id)
        writer.key("title")
        Self.write(announcement.title, to: &writer)
        writer.key("body")
        Self.write(announcement.body, to: &writer)
        writer.key("audience")
        switch announcement.audience {
        case .everyone:
            writer.value("all")
        case .rally(let id):
            writer.beginObject()
            writer.field("rallyId", id)
            writer.endObject()
        }
        writer.field("sendAt", timestampMillis: announcement.sendAt)
        writer.key("sentAt")
        if let sentAt = announcement.sentAt { writer.timestamp(millisecondsSince1970: sentAt) } else { writer.null() }
        writer.field("createdBy", announcement.createdBy)
        writer.field("createdAt", timestampMillis: announcement.createdAt)
        writer.endObject()
    }

    private static func write(_ text: LocalizedText, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("en", text.en)
        writer.field("es", text.es)
        writer.endObject()
    }
}

/// An inbox row's `announcement: {id, title, body}`, in the reader's language.
struct InboxAnnouncementJSON: JSONEncodable {
    let announcement: Announcement
    let locale: String?

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", announcement.id)
        writer.field("title", announcement.title.text(for: locale))
        writer.field("body", announcement.body.text(for: locale))
        writer.endObject()
    }
}
