import Storage

/// Where a rally, or one of its days, stands relative to today (API.md "Rallies").
public enum RallyStatus: String, Sendable {
    /// Starts more than 7 days from today.
    case upcoming
    /// Starts 1 to 7 days from today.
    case imminent
    /// Today is within it (its first day included).
    case live
    case finished

    /// The status of a span of calendar days (days since 1970-01-01, UTC) on `today`.
    public static func of(start: Int, end: Int, today: Int) -> RallyStatus {
        if today > end { return .finished }
        if today >= start { return .live }
        return start - today <= 7 ? .imminent : .upcoming
    }
}

/// A rally: a named event spanning 1 to 31 consecutive calendar days.
/// Its days are derived, never stored: day n is `startDay + n - 1`.
public struct Rally: Sendable, Equatable {
    public static let maxDays = 31

    public let id: String
    public var name: String
    public var country: String
    /// Calendar dates as days since 1970-01-01 (UTC).
    public var startDay: Int
    public var endDay: Int
    public var videosCount: Int
    public var createdAt: Int64

    public var dayCount: Int { endDay - startDay + 1 }

    /// The calendar day of day `number` (1-based).
    public func date(ofDay number: Int) -> Int { startDay + number - 1 }

    public func hasDay(_ number: Int) -> Bool { (1...dayCount).contains(number) }

    public func status(today: Int) -> RallyStatus { .of(start: startDay, end: endDay, today: today) }
}

extension Rally {
    /// The columns `init(row:)` reads by name (the Parse facade selects them beside its own).
    public static let columns: SQL = "id, name, country, start_date, end_date, videos_count, created_at"

    public init(row: Row) throws {
        id = try row.decode("id")
        name = try row.decode("name")
        country = try row.decode("country")
        startDay = try row.decode("start_date")
        endDay = try row.decode("end_date")
        videosCount = try row.decode("videos_count")
        createdAt = try row.decode("created_at")
    }
}
