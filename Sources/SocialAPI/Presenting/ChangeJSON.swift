import Community
import JSON

/// One entry of `GET /v1/changes`: `{"kind", "id", "op", "object"}`; `op` is `upsert` with the
/// object as the reader may see it now, or `delete` with null (deleted, or out of the
/// reader's sight: hidden, or its owner banned).
struct ChangeJSON: JSONEncodable {
    enum Object {
        case rally(RallyJSON)
        case video(VideoJSON)
    }

    let kind: ChangeKind
    let id: String
    let object: Object?

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("kind", kind.rawValue)
        writer.field("id", id)
        writer.field("op", object == nil ? "delete" : "upsert")
        writer.key("object")
        switch object {
        case .rally(let rally): writer.value(rally)
        case .video(let video): writer.value(video)
        case nil: writer.null()
        }
        writer.endObject()
    }
}

/// A page of `GET /v1/changes`: `{"changes": [...], "next": token, "hasMore": bool}`.
struct ChangesPageJSON: JSONEncodable {
    let changes: [ChangeJSON]
    let next: String
    let hasMore: Bool

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("changes")
        writer.writeArray(changes) { writer, change in writer.value(change) }
        writer.field("next", next)
        writer.field("hasMore", hasMore)
        writer.endObject()
    }
}
