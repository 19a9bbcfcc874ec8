import Auth
import Storage
import VideoRegistry

/// Ranked full-text search over users and videos (SQLite FTS5, accents folded in the index),
/// with a cost bounded by the page and a budget, never by the corpus.
///
/// Ranking, best first, in tiers: videos whose title holds every word whole (2), then every
/// word whole anywhere (1), then matches with the last word only as a prefix (0); for users an
/// exact username (2), then every word whole (1), then prefix matches (0). Within a tier, the
/// most recently added first. Pages use `(tier, seq)` as their keyset position.
///
/// Why not bm25: its IDF reads every row holding each query term (FTS5's `xQueryPhrase`), and
/// ordering by it needs every match ranked before the first row is returned: 0.30-0.45 s for
/// one query on 100,000 videos. Each tier here is one FTS5 scan in rowid order (descending),
/// which FTS5 answers lazily, so a page whose first tier fills it reads about `limit` index
/// entries whatever the corpus.
///
/// The budget: a search considers the newest `budget` (1,000) rows matching the query (the
/// window). The window's lower rowid is found once, on the first page, and kept in the
/// cursor, so later pages list the same window. Inside it every tier scan is bounded: a tier
/// lists rows of the window minus the higher tiers (FTS5 `NOT`), and those rows are a subset
/// of the window's, so even a page that walks through an empty tier reads at most
/// `budget` entries per tier. Matches older than the window are not listed.
///
/// PostgreSQL lists the same tiers in the same order from its `tsvector` tables
/// (`users_search`, `videos_search` by `seq`; migrations/postgres 0002 and 0010): the words
/// are bound as one value and turned into a `tsquery` by `pacenote_search_query`, which folds
/// them as the documents were folded, and "in the title" is the title's own vector. There the
/// cost is not as tightly bounded: a GIN index answers a match with every matching row at
/// once (a bitmap), so a very common word costs in proportion to its matches.
package struct SearchStore {
    /// A row's keyset position and the window it was found in.
    package struct Position: Equatable {
        package var tier: Int
        package var seq: Int64
        /// The lowest rowid of the window (see the type's comment); 0 when every match fits.
        package var windowStart: Int64

        package init(tier: Int, seq: Int64, windowStart: Int64) {
            self.tier = tier
            self.seq = seq
            self.windowStart = windowStart
        }
    }

    /// The most matching rows one search considers (tests choose a smaller one).
    package var budget = 1_000

    package init(budget: Int = 1_000) {
        self.budget = budget
    }

    /// Users matching every word, the last as a prefix (see `SearchQuery.minimumPrefixLength`).
    package func users(_ query: SearchQuery, exactUsername: String, after: Position?, limit: Int, on connection: any DatabaseConnection) throws -> [(Account, Position)] {
        let exact = exactUsername.lowercased()
        let windowStart = try after?.windowStart ?? windowStart("users_search", query, on: connection)
        var out: [(Account, Position)] = []
        for tier in Self.tiers(after: after) where out.count < limit {
            let bound = Self.bound(tier, after)
            let rows: [Row]
            switch tier {
            case 2:
                rows = try connection.fetchAll("""
                    SELECT \(Account.columns), users.seq FROM users
                    WHERE users.username_key = \(exact) AND users.seq < \(bound)
                    """)
            default:
                if tier == 0 && !query.lastWordIsPrefix { continue }
                let terms: Terms = tier == 1 ? .whole : .prefixNotWhole
                let key = Self.key("users_search", connection.dialect)
                rows = try connection.fetchAll("""
                    SELECT \(Account.columns), users.seq
                    FROM users_search JOIN users ON users.seq = \(key)
                    WHERE \(Self.condition("users_search", terms, query, connection.dialect)) AND \(key) >= \(windowStart) AND \(key) < \(bound)
                      AND users.username_key <> \(exact)
                    ORDER BY \(key) DESC LIMIT \(limit - out.count)
                    """)
            }
            for row in rows {
                out.append((try Account(row: row), Position(tier: tier, seq: try row.decode("seq"), windowStart: windowStart)))
            }
        }
        return out
    }

    /// Videos the viewer may see, matching every word in the title or description.
    package func videos<Item>(_ query: SearchQuery, viewer: Viewer, after: Position?, limit: Int, selecting selection: Selection<Item>,
                      on connection: any DatabaseConnection) throws -> [(Item, Position)] {
        let windowStart = try after?.windowStart ?? windowStart("videos_search", query, on: connection)
        var out: [(Item, Position)] = []
        for tier in Self.tiers(after: after) where out.count < limit {
            let terms: Terms
            switch tier {
            case 2: terms = .wholeInTitle
            case 1: terms = .wholeNotInTitle
            default:
                guard query.lastWordIsPrefix else { continue }
                terms = .prefixNotWhole
            }
            let key = Self.key("videos_search", connection.dialect)
            out += try connection.fetchAll("""
                SELECT v.seq, \(selection.columns)
                FROM videos_search JOIN videos v ON v.seq = \(key) \(selection.joins)
                WHERE \(Self.condition("videos_search", terms, query, connection.dialect)) AND \(key) >= \(windowStart)
                  AND \(key) < \(Self.bound(tier, after)) AND \(viewer.visibilityFilter())
                ORDER BY \(key) DESC LIMIT \(limit - out.count)
                """) { reader in
                let seq: Int64 = try reader.next()
                return (try selection.read(&reader), Position(tier: tier, seq: seq, windowStart: windowStart))
            }
        }
        return out
    }

    /// The rowid of the `budget`-th newest match, or 0 when there are fewer matches. FTS5 walks
    /// the rowids in order without reading rows, so this costs at most `budget` index entries.
    private func windowStart(_ table: String, _ query: SearchQuery, on connection: any DatabaseConnection) throws -> Int64 {
        let key = Self.key(table, connection.dialect)
        return try connection.fetchValue("""
            SELECT \(key) FROM \(unsafe: table) WHERE \(Self.condition(table, .all, query, connection.dialect))
            ORDER BY \(key) DESC LIMIT 1 OFFSET \(budget - 1)
            """, as: Int64.self) ?? 0
    }

    /// The rows a tier lists: every match (the last word a prefix when long enough), or those
    /// with every word whole, or only as a prefix; for videos, whole words in the title or not.
    package enum Terms {
        case all, whole, prefixNotWhole, wholeInTitle, wholeNotInTitle
    }

    /// A search table's key, the `seq` of its user or video: FTS5's rowid, or the column of
    /// the PostgreSQL table.
    private static func key(_ table: String, _ dialect: SQLDialect) -> SQL {
        switch dialect {
        case .sqlite: return "\(unsafe: table).rowid"
        case .postgres: return "\(unsafe: table).seq"
        }
    }

    /// The full-text condition on `table` for `terms`; `wholeInTitle` and `wholeNotInTitle`
    /// read the title of the video joined as `v` on PostgreSQL.
    private static func condition(_ table: String, _ terms: Terms, _ query: SearchQuery, _ dialect: SQLDialect) -> SQL {
        switch dialect {
        case .sqlite:
            let match: String
            switch terms {
            case .all: match = query.prefixMatch
            case .whole: match = query.wholeWordMatch
            case .prefixNotWhole: match = "(\(query.prefixMatch)) NOT (\(query.wholeWordMatch))"
            case .wholeInTitle: match = query.wholeWordMatch(inColumn: "title")
            case .wholeNotInTitle: match = "(\(query.wholeWordMatch)) NOT (\(query.wholeWordMatch(inColumn: "title")))"
            }
            return "\(unsafe: table) MATCH \(match)"
        case .postgres:
            // Scalar subqueries, so each tsquery is built once per statement (an InitPlan the
            // GIN index scan takes as its key), not once per row.
            let words = query.words.joined(separator: " ")
            let whole: SQL = "(SELECT pacenote_search_query(\(words), FALSE))"
            let prefix: SQL = "(SELECT pacenote_search_query(\(words), \(unsafe: query.lastWordIsPrefix ? "TRUE" : "FALSE")))"
            let document: SQL = "\(unsafe: table).document"
            let title: SQL = "to_tsvector('simple', pacenote_search_text(v.title))"
            switch terms {
            case .all: return "\(document) @@ \(prefix)"
            case .whole: return "\(document) @@ \(whole)"
            case .prefixNotWhole: return "\(document) @@ \(prefix) AND NOT (\(document) @@ \(whole))"
            case .wholeInTitle: return "\(document) @@ \(whole) AND \(title) @@ \(whole)"
            case .wholeNotInTitle: return "\(document) @@ \(whole) AND NOT (\(title) @@ \(whole))"
            }
        }
    }

    /// The tiers still to list after `position`, best first.
    private static func tiers(after position: Position?) -> [Int] {
        [2, 1, 0].filter { $0 <= (position?.tier ?? 2) }
    }

    /// Rows of `tier` come before this seq: the position's seq in its own tier, none below it.
    private static func bound(_ tier: Int, _ position: Position?) -> Int64 {
        guard let position, position.tier == tier else { return Int64.max }
        return position.seq
    }
}
