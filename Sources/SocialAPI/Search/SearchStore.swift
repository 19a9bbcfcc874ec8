import Auth
import Storage
import VideoRegistry

/// Ranked full-text search over users and videos (SQLite FTS5, accents folded in the index).
///
/// Ranking, best first: a tier (an exact username, or a whole-word title match, ranks above
/// a prefix-only match), then FTS5's bm25 rank, then id. Pages use that triple as their
/// keyset position; ranks are recomputed per page, so an edit between pages can move an item,
/// never duplicate one within a stable corpus.
struct SearchStore {
    typealias Position = (tier: Int, rank: Double, id: String)

    /// Users matching every word, the last as a prefix.
    func users(_ query: SearchQuery, exactUsername: String, after: Position?, limit: Int, on connection: any DatabaseConnection) throws -> [(Account, Position)] {
        let rows = try connection.fetchAll("""
            SELECT * FROM (
                SELECT \(Account.columns),
                       CASE WHEN users.username_key = \(exactUsername.lowercased()) THEN 1 ELSE 0 END AS tier,
                       bm25(users_search, 4.0, 1.0) AS rank
                FROM users_search JOIN users ON users.seq = users_search.rowid
                WHERE users_search MATCH \(query.prefixMatch)
            ) \(Self.after(after))
            ORDER BY tier DESC, rank, id LIMIT \(limit)
            """)
        return try rows.map { row in (try Account(row: row), try Self.position(row)) }
    }

    /// Videos the viewer may see, matching every word in the title or description.
    func videos(_ query: SearchQuery, viewer: Viewer, after: Position?, limit: Int, on connection: any DatabaseConnection) throws -> [(Video, Position)] {
        let rows = try connection.fetchAll("""
            SELECT * FROM (
                SELECT \(Video.columns),
                       CASE WHEN v.seq IN (SELECT rowid FROM videos_search WHERE videos_search MATCH \(query.wholeWordMatch)) THEN 1 ELSE 0 END AS tier,
                       bm25(videos_search, 4.0, 1.0) AS rank
                FROM videos_search JOIN videos v ON v.seq = videos_search.rowid
                WHERE videos_search MATCH \(query.prefixMatch) AND \(viewer.visibilityFilter())
            ) \(Self.after(after))
            ORDER BY tier DESC, rank, id LIMIT \(limit)
            """)
        return try rows.map { row in (try Video(row: row), try Self.position(row)) }
    }

    /// Rows strictly after `position` in (tier DESC, rank ASC, id ASC) order.
    private static func after(_ position: Position?) -> SQL {
        guard let p = position else { return "" }
        return "WHERE tier < \(p.tier) OR (tier = \(p.tier) AND (rank > \(p.rank) OR (rank = \(p.rank) AND id > \(p.id))))"
    }

    private static func position(_ row: Row) throws -> Position {
        (try row.decode("tier"), try row.decode("rank"), try row.decode("id"))
    }
}
