import Storage

/// The SQL of the `rallies` table.
public struct RallyStore: Sendable {
    public init() {}

    public func find(id: String, on connection: any DatabaseConnection) throws -> Rally? {
        try connection.fetchOne("SELECT \(Rally.columns) FROM rallies WHERE id = \(id)").map(Rally.init(row:))
    }

    /// The rallies with these ids, in no particular order (a page of the change log).
    public func find(ids: [String], on connection: any DatabaseConnection) throws -> [Rally] {
        guard !ids.isEmpty else { return [] }
        return try connection.fetchAll("""
            SELECT \(Rally.columns) FROM rallies WHERE id IN (\(SQL.joined(ids.map { "\($0)" }, separator: ", ")))
            """).map(Rally.init(row:))
    }

    /// Every rally starting within `days` (all when nil), ordered by start date.
    func list(startingWithin days: ClosedRange<Int>?, on connection: any DatabaseConnection) throws -> [Rally] {
        let filter: SQL = days.map { "WHERE start_date BETWEEN \($0.lowerBound) AND \($0.upperBound)" } ?? ""
        return try connection.fetchAll("SELECT \(Rally.columns) FROM rallies \(filter) ORDER BY start_date, id").map(Rally.init(row:))
    }

    func insert(_ rally: Rally, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO rallies (id, name, country, start_date, end_date, videos_count, created_at, updated_at)
            VALUES (\(rally.id), \(rally.name), \(rally.country), \(rally.startDay), \(rally.endDay), 0, \(rally.createdAt), \(rally.createdAt))
            """)
    }

    func update(_ rally: Rally, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            UPDATE rallies SET name = \(rally.name), country = \(rally.country), start_date = \(rally.startDay),
                end_date = \(rally.endDay), updated_at = \(now)
            WHERE id = \(rally.id)
            """)
    }

    func delete(id: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM rallies WHERE id = \(id)")
    }

    /// The highest day any video of the rally uses (0 when it has none).
    func highestVideoDay(rallyID: String, on connection: any DatabaseConnection) throws -> Int {
        try connection.fetchValue("SELECT COALESCE(MAX(day), 0) FROM videos WHERE rally_id = \(rallyID)", as: Int.self) ?? 0
    }

    public func adjustVideosCount(rallyID: String, by delta: Int, on connection: any DatabaseConnection) throws {
        try connection.execute("UPDATE rallies SET videos_count = videos_count + \(delta) WHERE id = \(rallyID)")
    }
}
