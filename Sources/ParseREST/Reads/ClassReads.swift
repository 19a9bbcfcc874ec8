import Auth
import Community
import JSON
import Storage
import VideoRegistry

/// Runs translated queries against the database, in one read transaction per request, with
/// the domain's visibility predicates added to every statement: `Viewer.visibilityFilter` for
/// videos (hidden ones and banned owners' out of sight, as on `/v1`), `Viewer.accountFilter`
/// for accounts. Included pointers are read in one statement per class, by id.
struct ClassReads: Sendable {
    let database: any Database

    /// A find's answer: `{"results": [...]}` with `"count"` when asked.
    func find(_ schema: ParseSchema, _ query: TranslatedQuery, viewer: Viewer) throws -> JSONWriter {
        try database.read { connection in
            var writer = JSONWriter(capacity: 4096)
            writer.beginObject()
            writer.key("results")
            writer.beginArray()
            if query.limit > 0 { try writeResults(schema, query, viewer: viewer, on: connection, to: &writer) }
            writer.endArray()
            if query.count {
                let total = try connection.fetchValue(
                    "SELECT COUNT(*) FROM \(unsafe: schema.table) WHERE \(query.filter) AND \(Self.visibility(schema, viewer, query.byKey))",
                    as: Int64.self) ?? 0
                writer.field("count", total)
            }
            writer.endObject()
            return writer
        }
    }

    /// The object a by-id query (limit 1) names, written alone (`GET /classes/C/id`); 101
    /// when there is none the caller may see.
    func get(_ schema: ParseSchema, _ query: TranslatedQuery, viewer: Viewer) throws -> JSONWriter {
        precondition(query.limit == 1, "a get reads one object")
        return try database.read { connection in
            var writer = JSONWriter(capacity: 1024)
            try writeResults(schema, query, viewer: viewer, on: connection, to: &writer)
            guard writer.count > 0 else { throw ParseError.objectNotFound }
            return writer
        }
    }

    /// The domain's predicate on the rows of `schema` this viewer may see (a subquery's too).
    static func visibility(_ schema: ParseSchema, _ viewer: Viewer, _ byKey: Bool) -> SQL {
        switch schema.className {
        case "Video": viewer.visibilityFilter(schema.alias, rows: byKey ? .one : .many)
        case "_User": viewer.accountFilter(schema.alias)
        case "Activity": Self.activityFilter(viewer)
        default: "1 = 1"
        }
    }

    /// The activities `/v1` shows this viewer: by and to accounts not banned, on videos the
    /// viewer may see (a follow has none), as the video's likes and comments on `/v1`; and no
    /// flag but the viewer's own unless they moderate (`Viewer.activityKindFilter`). Every
    /// Activity statement carries it (finds, gets, counts, and Activity as a subquery's class),
    /// so no query shape can hand out who flagged a video.
    static func activityFilter(_ viewer: Viewer) -> SQL {
        """
        \(viewer.activityKindFilter("a")) AND \(viewer.authorFilter("a")) AND \(viewer.authorFilter("a", column: "to_user_id")) \
        AND (a.video_id IS NULL OR EXISTS \
        (SELECT 1 FROM videos v WHERE v.id = a.video_id AND \(viewer.visibilityFilter("v", rows: .one))))
        """
    }

    private func writeResults(_ schema: ParseSchema, _ query: TranslatedQuery, viewer: Viewer, on connection: any DatabaseConnection,
                              to writer: inout JSONWriter) throws {
        let fields = ParseObjects.Fields(keys: query.keys)
        let statement = self.statement(schema, query, viewer: viewer)
        switch schema.className {
        case "Rallye":
            for row in try connection.fetchAll(statement).map(RallyRow.init(row:)) {
                ParseObjects.writeRally(row, fields: fields, to: &writer)
            }
        case "_User":
            for row in try connection.fetchAll(statement).map(UserRow.init(row:)) {
                ParseObjects.writeUser(row, callerID: viewer.userID, fields: fields, to: &writer)
            }
        case "Activity":
            let rows = try connection.fetchAll(statement).map(Activity.init(row:))
            let userIDs = Set((query.include.contains("fromUser") ? rows.map(\.fromUserID) : [])
                + (query.include.contains("toUser") ? rows.map(\.toUserID) : []))
            let users = try self.users(ids: userIDs, viewer: viewer, on: connection)
            let videos = query.include.contains("video") ? try self.videos(ids: Set(rows.compactMap(\.videoID)), viewer: viewer, on: connection) : [:]
            for row in rows {
                ParseObjects.writeActivity(row, from: query.include.contains("fromUser") ? users[row.fromUserID] : nil,
                                           to: query.include.contains("toUser") ? users[row.toUserID] : nil,
                                           video: row.videoID.flatMap { videos[$0] }, callerID: viewer.userID, fields: fields, to: &writer)
            }
        default:
            let rows = try connection.fetchAll(statement) { reader in try VideoRow(reading: &reader) }
            let owners = query.include.contains("owner")
                ? try users(ids: Set(rows.map(\.video.ownerID)), viewer: viewer, on: connection) : [:]
            let rallies = query.include.contains("rallyId") ? try self.rallies(ids: Set(rows.map(\.video.rallyID)), on: connection) : [:]
            for row in rows {
                ParseObjects.writeVideo(row, rally: rallies[row.video.rallyID], owner: owners[row.video.ownerID], callerID: viewer.userID,
                                        fields: fields, to: &writer)
            }
        }
    }

    /// The statement of a find's page: the class's columns, the translated filter, the
    /// domain's visibility, the index's order, the page (the EXPLAIN tests plan it).
    func statement(_ schema: ParseSchema, _ query: TranslatedQuery, viewer: Viewer) -> SQL {
        let columns: SQL = switch schema.className {
        case "Rallye": RallyRow.columns
        case "_User": UserRow.columns
        case "Activity": Activity.columns
        default: VideoRow.columns
        }
        return """
            SELECT \(columns) FROM \(unsafe: schema.table) WHERE \(query.filter) AND \(Self.visibility(schema, viewer, query.byKey)) \
            ORDER BY \(unsafe: query.order) LIMIT \(query.limit) OFFSET \(query.skip)
            """
    }

    private func users(ids: Set<String>, viewer: Viewer, on connection: any DatabaseConnection) throws -> [String: UserRow] {
        guard !ids.isEmpty else { return [:] }
        let list = SQL.joined(ids.sorted().map { "\($0)" }, separator: ", ")
        let rows = try connection.fetchAll("SELECT \(UserRow.columns) FROM users WHERE users.id IN (\(list)) AND \(viewer.accountFilter())")
        return Dictionary(try rows.map { row in let user = try UserRow(row: row); return (user.account.id, user) }, uniquingKeysWith: { a, _ in a })
    }

    private func videos(ids: Set<String>, viewer: Viewer, on connection: any DatabaseConnection) throws -> [String: VideoRow] {
        guard !ids.isEmpty else { return [:] }
        let list = SQL.joined(ids.sorted().map { "\($0)" }, separator: ", ")
        let rows = try connection.fetchAll("SELECT \(VideoRow.columns) FROM videos v WHERE v.id IN (\(list)) AND \(viewer.visibilityFilter("v"))") {
            reader in try VideoRow(reading: &reader)
        }
        return Dictionary(rows.map { ($0.video.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    private func rallies(ids: Set<String>, on connection: any DatabaseConnection) throws -> [String: RallyRow] {
        guard !ids.isEmpty else { return [:] }
        let list = SQL.joined(ids.sorted().map { "\($0)" }, separator: ", ")
        let rows = try connection.fetchAll("SELECT \(RallyRow.columns) FROM rallies WHERE id IN (\(list))")
        return Dictionary(try rows.map { row in let rally = try RallyRow(row: row); return (rally.rally.id, rally) }, uniquingKeysWith: { a, _ in a })
    }
}

extension ClassReads {
    /// An account as its owner sees it, banned or not (login and `/users/me` answer the caller,
    /// whom Accounts has already checked).
    func user(id: String) throws -> UserRow? {
        try database.read { connection in
            try connection.fetchOne("SELECT \(UserRow.columns) FROM users WHERE users.id = \(id)").map(UserRow.init(row:))
        }
    }
}

extension ClassReads {
    /// A video's `updated_at` (a PUT's answer), or nil when there is none.
    func videoUpdatedAt(id: String) throws -> Int64? {
        try database.read { connection in try connection.fetchValue("SELECT updated_at FROM videos WHERE id = \(id)", as: Int64.self) }
    }

    /// The activity with this id, if the viewer may see it as an object (a delete's rules are
    /// the domain's; another's flag is not there, so a delete of it answers as of no object).
    func activity(id: String, viewer: Viewer) throws -> Activity? {
        let activity = try database.read { connection in try ActivityStore().find(id: id, on: connection) }
        return activity.flatMap { viewer.canSee($0) ? $0 : nil }
    }
}
