import Storage

/// The SQL of the `videos` table, including the keyset-paged lists.
public struct VideoStore: Sendable {
    public init() {}

    /// A position in a list ordered newest first: `(created_at, id)`.
    public typealias RecentPosition = (createdAt: Int64, id: String)
    /// A position in a list ordered by likes, then newest: `(likes_count, created_at, id)`.
    public typealias TopPosition = (likes: Int, createdAt: Int64, id: String)

    public func find(id: String, on connection: any DatabaseConnection) throws -> Video? {
        try connection.fetchOne("SELECT \(Video.columns) FROM videos v WHERE v.id = \(id)").map(Video.init(row:))
    }

    func find(youtubeID: YouTubeID, on connection: any DatabaseConnection) throws -> Video? {
        try connection.fetchOne("SELECT \(Video.columns) FROM videos v WHERE v.youtube_id = \(youtubeID.value)").map(Video.init(row:))
    }

    /// The video, if the viewer may see it, as `selection` reads it.
    public func find<Item>(id: String, viewer: Viewer, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> Item? {
        try connection.fetchOne("""
            SELECT \(selection.columns) FROM videos v \(selection.joins)
            WHERE v.id = \(id) AND \(viewer.visibilityFilter(rows: .one))
            """, reading: selection.read)
    }

    /// The videos with these ids that the viewer may see, as `selection` reads them, in no
    /// particular order (a page of the change log: at most 500 ids, one statement).
    public func find<Item>(ids: [String], viewer: Viewer, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [Item] {
        guard !ids.isEmpty else { return [] }
        return try connection.fetchAll("""
            SELECT \(selection.columns) FROM videos v \(selection.joins)
            WHERE v.id IN (\(SQL.joined(ids.map { "\($0)" }, separator: ", "))) AND \(viewer.visibilityFilter())
            """, reading: selection.read)
    }

    // The lists take a `Selection` so that a page is one statement: the routes select each
    // video with its owner and the caller's flags (SocialAPI's Presenter), not the bare row.

    /// A user's videos the viewer may see, newest first, `limit` of them after `after` (or,
    /// `.newer`, above it, nearest first).
    public func byOwner<Item>(_ ownerID: String, viewer: Viewer, after: RecentPosition?, direction: KeysetDirection = .older, limit: Int,
                              selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [Item] {
        let position: SQL = after.map { "AND (v.created_at, v.id) \(direction.comparison) (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(selection.columns) FROM videos v \(selection.joins)
            WHERE v.owner_id = \(ownerID) AND \(viewer.visibilityFilter()) \(position)
            ORDER BY v.created_at \(direction.order), v.id \(direction.order) LIMIT \(limit)
            """, reading: selection.read)
    }

    /// One rally day's videos the viewer may see, newest first (`.newer`: above `after`,
    /// nearest first).
    public func byDay<Item>(rallyID: String, day: Int, viewer: Viewer, after: RecentPosition?, direction: KeysetDirection = .older, limit: Int,
                            selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [Item] {
        let position: SQL = after.map { "AND (v.created_at, v.id) \(direction.comparison) (\($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(selection.columns) FROM videos v \(selection.joins)
            WHERE v.rally_id = \(rallyID) AND v.day = \(day) AND \(viewer.visibilityFilter()) \(position)
            ORDER BY v.created_at \(direction.order), v.id \(direction.order) LIMIT \(limit)
            """, reading: selection.read)
    }

    /// One rally day's videos the viewer may see, most liked first, then newest.
    public func topByDay<Item>(rallyID: String, day: Int, viewer: Viewer, after: TopPosition?, limit: Int, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> [Item] {
        let position: SQL = after.map { "AND (v.likes_count, v.created_at, v.id) < (\($0.likes), \($0.createdAt), \($0.id))" } ?? ""
        return try connection.fetchAll("""
            SELECT \(selection.columns) FROM videos v \(selection.joins)
            WHERE v.rally_id = \(rallyID) AND v.day = \(day) AND \(viewer.visibilityFilter()) \(position)
            ORDER BY v.likes_count DESC, v.created_at DESC, v.id DESC LIMIT \(limit)
            """, reading: selection.read)
    }

    /// A rally's first video the viewer may see (its earliest day, then first registered), as
    /// `selection` reads it: a rally page's preview image. Walks `videos_day_recent` in order.
    public func first<Item>(ofRally rallyID: String, viewer: Viewer, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> Item? {
        try connection.fetchOne("""
            SELECT \(selection.columns) FROM videos v \(selection.joins)
            WHERE v.rally_id = \(rallyID) AND \(viewer.visibilityFilter())
            ORDER BY v.day, v.created_at, v.id LIMIT 1
            """, reading: selection.read)
    }

    /// Every video of a user, for cascades.
    public func videos(ownerID: String, on connection: any DatabaseConnection) throws -> [Video] {
        try connection.fetchAll("SELECT \(Video.columns) FROM videos v WHERE v.owner_id = \(ownerID)").map(Video.init(row:))
    }

    func insert(_ video: Video, on connection: any DatabaseConnection) throws {
        do {
            try connection.execute("""
                INSERT INTO videos (id, youtube_id, title, description, rally_id, day, owner_id, hidden, created_at, updated_at)
                VALUES (\(video.id), \(video.youtubeID.value), \(video.title), \(video.description), \(video.rallyID),
                        \(video.day), \(video.ownerID), \(video.hidden), \(video.createdAt), \(video.createdAt))
                """)
        } catch {
            if error.isUniqueViolation(on: "youtube_id") { throw VideoRegistryError.duplicateVideo }
            throw error
        }
    }

    func update(_ video: Video, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            UPDATE videos SET title = \(video.title), description = \(video.description), hidden = \(video.hidden), updated_at = \(now)
            WHERE id = \(video.id)
            """)
    }

    public func delete(id: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM videos WHERE id = \(id)")
    }

    /// Adds `delta` to one of the stored counters.
    public func adjust(_ counter: Counter, of videoID: String, by delta: Int, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE videos SET \(unsafe: counter.rawValue) = \(unsafe: counter.rawValue) + \(delta) WHERE id = \(videoID)")
    }

    public enum Counter: String, Sendable {
        case likes = "likes_count"
        case comments = "comments_count"
        case flags = "flags_count"
    }

    /// Whether the video's owner is banned (their videos are then out of sight like hidden ones).
    public func isOwnerBanned(_ video: Video, on connection: any DatabaseConnection) throws -> Bool {
        try connection.fetchValue("SELECT banned_at IS NOT NULL FROM users WHERE id = \(video.ownerID)", as: Bool.self) ?? false
    }

    /// Hides or shows a video.
    public func setHidden(_ hidden: Bool, videoID: String, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE videos SET hidden = \(hidden), updated_at = \(now) WHERE id = \(videoID)")
    }
}
