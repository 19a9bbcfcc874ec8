import Storage
import VideoRegistry

/// One UTC day of `GET /v1/admin/stats`.
package struct DayStats: Sendable, Equatable {
    /// Days since 1970-01-01.
    package let day: Int
    package var signups = 0
    package var activeUsers = 0
    package var videos = 0
    package var likes = 0
    package var comments = 0
    package var flags = 0

    package init(day: Int) {
        self.day = day
    }
}

/// The last days' numbers, counted from the data at each request with bounded cost: every
/// statement is a range scan of an index on the creation time (migration 0022), so a request
/// reads the window's rows and never a whole table (QueryPlanTests checks the plans). Rows
/// deleted since are not counted; a banned user's content is.
package struct AdminStats: Sendable {
    package static let dayMillis: Int64 = 86_400_000

    package init() {}

    /// `days` days ending with `now`'s, oldest first, and the distinct users active in them.
    package func days(_ days: Int, now: Int64, on connection: any DatabaseConnection) throws -> (days: [DayStats], activeUsers: Int) {
        let today = Int(now / Self.dayMillis)
        let first = today - days + 1
        var byDay = Dictionary(uniqueKeysWithValues: (first...today).map { ($0, DayStats(day: $0)) })
        for (day, count) in try counts(Self.signups(from: first), on: connection) { byDay[day]?.signups = count }
        for (day, count) in try counts(Self.videos(from: first), on: connection) { byDay[day]?.videos = count }
        for (day, count) in try counts(Self.activeUsers(from: first), on: connection) { byDay[day]?.activeUsers = count }
        for row in try connection.fetchAll(Self.activities(from: first)) {
            let type: Int = try row.decode(at: 0), day: Int = try row.decode(at: 1), count: Int = try row.decode(at: 2)
            switch ActivityKind(rawValue: type) {
            case .like: byDay[day]?.likes = count
            case .comment: byDay[day]?.comments = count
            case .inappropriate: byDay[day]?.flags = count
            case .follow, nil: break
            }
        }
        let distinct = try connection.fetchValue(Self.distinctActive(from: first), as: Int.self) ?? 0
        return ((first...today).compactMap { byDay[$0] }, distinct)
    }

    private func counts(_ sql: SQL, on connection: any DatabaseConnection) throws -> [(Int, Int)] {
        try connection.fetchAll(sql).map { (try $0.decode(at: 0, as: Int.self), try $0.decode(at: 1, as: Int.self)) }
    }

    // The statements, apart so that QueryPlanTests explains exactly these. `first` is a day
    // (days since 1970-01-01), compared with `created_at / 86400000`, the expression migration
    // 0022's indexes are on. The day's length is a literal, not a bind: both databases match an
    // expression index, and PostgreSQL a grouped expression, by its text, and two binds of one
    // value are two expressions to them.

    package static func signups(from first: Int) -> SQL {
        "SELECT created_at / 86400000 AS day, COUNT(*) FROM users WHERE created_at / 86400000 >= \(first) GROUP BY 1"
    }

    package static func videos(from first: Int) -> SQL {
        "SELECT created_at / 86400000 AS day, COUNT(*) FROM videos WHERE created_at / 86400000 >= \(first) GROUP BY 1"
    }

    package static func activities(from first: Int) -> SQL {
        """
        SELECT type, created_at / 86400000 AS day, COUNT(*) FROM activities
        WHERE type IN (\(ActivityKind.sql(.like, .comment, .inappropriate))) AND created_at / 86400000 >= \(first)
        GROUP BY 1, 2
        """
    }

    package static func activeUsers(from first: Int) -> SQL {
        "SELECT day, COUNT(*) FROM active_days WHERE day >= \(first) GROUP BY day"
    }

    package static func distinctActive(from first: Int) -> SQL {
        "SELECT COUNT(DISTINCT user_id) FROM active_days WHERE day >= \(first)"
    }
}
