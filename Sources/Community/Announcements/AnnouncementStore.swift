import Storage

/// The SQL of the `announcements` table (migration 0021) and of an announcement's inbox rows.
package struct AnnouncementStore: Sendable {
    package init() {}

    private static let columns: SQL = "seq, id, title_en, title_es, body_en, body_es, rally_id, send_at, sent_at, created_by, created_at"

    package func insert(id: String, draft: AnnouncementDraft, sendAt: Int64, createdBy: String, now: Int64,
                        on connection: any DatabaseConnection) throws -> Announcement {
        try connection.fetchOne("""
            INSERT INTO announcements (id, title_en, title_es, body_en, body_es, rally_id, send_at, sent_at, created_by, created_at)
            VALUES (\(id), \(draft.title.en), \(draft.title.es), \(draft.body.en), \(draft.body.es), \(draft.audience.rallyID),
                    \(sendAt), NULL, \(createdBy), \(now))
            RETURNING \(Self.columns)
            """).map(Self.announcement(row:)).orThrow(column: "seq", expected: "the announcement just written")
    }

    package func find(id: String, on connection: any DatabaseConnection) throws -> Announcement? {
        try connection.fetchOne("SELECT \(Self.columns) FROM announcements WHERE id = \(id)").map(Self.announcement(row:))
    }

    package func find(ids: [String], on connection: any DatabaseConnection) throws -> [Announcement] {
        guard !ids.isEmpty else { return [] }
        let list = SQL.joined(ids.map { "\($0)" }, separator: ", ")
        return try connection.fetchAll("SELECT \(Self.columns) FROM announcements WHERE id IN (\(list))").map(Self.announcement(row:))
    }

    /// Newest first, after seq `after`.
    package func page(after: Int64?, limit: Int, on connection: any DatabaseConnection) throws -> [Announcement] {
        let position: SQL = after.map { "WHERE seq < \($0)" } ?? ""
        return try connection.fetchAll("SELECT \(Self.columns) FROM announcements \(position) ORDER BY seq DESC LIMIT \(limit)")
            .map(Self.announcement(row:))
    }

    /// Deletes the announcement if it is not sent yet; answers whether it did.
    package func deleteUnsent(id: String, on connection: any DatabaseConnection) throws -> Bool {
        try connection.execute("DELETE FROM announcements WHERE id = \(id) AND sent_at IS NULL") == 1
    }

    /// Marks the announcement sent at `now` if nobody has: the one conditional update that
    /// makes its fan-out start exactly once (on PostgreSQL two servers' serializable
    /// transactions doing this at once conflict, and the one run again finds it sent).
    package func claim(id: String, now: Int64, on connection: any DatabaseConnection) throws -> Announcement? {
        try connection.fetchOne("""
            UPDATE announcements SET sent_at = \(now) WHERE id = \(id) AND sent_at IS NULL RETURNING \(Self.columns)
            """).map(Self.announcement(row:))
    }

    /// The seq of the last of the next `limit` recipients after user seq `after`, nil when
    /// there are none: the bound of one batch of the fan-out.
    package func batchEnd(audience: Audience, after: Int64, limit: Int, on connection: any DatabaseConnection) throws -> Int64? {
        try connection.fetchValue("""
            SELECT MAX(seq) FROM (SELECT u.seq FROM users u WHERE u.seq > \(after) AND \(Self.audienceFilter(audience))
                                  ORDER BY u.seq LIMIT \(limit)) batch
            """, as: Int64?.self) ?? nil
    }

    /// The inbox rows of one batch (recipients with user seq in `after+1...upTo`), in one
    /// INSERT … SELECT: nothing comes back to the program but the seq range written. Ids are
    /// the announcement's seq and the user's, unique by construction and made by the database.
    package func insertNotifications(_ announcement: Announcement, after: Int64, upTo: Int64, now: Int64,
                                     on connection: any DatabaseConnection) throws -> ClosedRange<Int64>? {
        let prefix = "A\(announcement.seq)u"
        let seqs = try connection.fetchAll("""
            INSERT INTO notifications (id, user_id, kind, actor_id, activity_id, video_id, announcement_id, about_me, created_at)
            SELECT \(prefix) || CAST(u.seq AS TEXT), u.id, 'announcement', \(announcement.createdBy), NULL, NULL, \(announcement.id), FALSE, \(now)
            FROM users u WHERE u.seq > \(after) AND u.seq <= \(upTo) AND \(Self.audienceFilter(announcement.audience))
            RETURNING seq
            """).map { try $0.decode(at: 0, as: Int64.self) }
        guard let low = seqs.min(), let high = seqs.max() else { return nil }
        return low...high
    }

    /// Users of `audience`, as a filter on `users u`.
    private static func audienceFilter(_ audience: Audience) -> SQL {
        switch audience {
        case .everyone:
            return "u.banned_at IS NULL"
        case .rally(let rallyID):
            return """
                u.banned_at IS NULL AND (
                    EXISTS (SELECT 1 FROM videos v WHERE v.owner_id = u.id AND v.rally_id = \(rallyID))
                    OR EXISTS (SELECT 1 FROM activities a JOIN videos v ON v.id = a.video_id
                               WHERE a.from_user_id = u.id AND a.type IN (\(ActivityKind.like.sql), \(ActivityKind.comment.sql))
                                 AND v.rally_id = \(rallyID)))
                """
        }
    }

    private static func announcement(row: Row) throws -> Announcement {
        var reader = RowReader(row)
        let seq: Int64 = try reader.next()
        let id: String = try reader.next()
        let title = LocalizedText(en: try reader.next(), es: try reader.next())
        let body = LocalizedText(en: try reader.next(), es: try reader.next())
        let rallyID: String? = try reader.next()
        return Announcement(seq: seq, id: id, title: title, body: body, audience: rallyID.map { .rally(id: $0) } ?? .everyone,
                            sendAt: try reader.next(), sentAt: try reader.next(), createdBy: try reader.next(), createdAt: try reader.next())
    }
}
