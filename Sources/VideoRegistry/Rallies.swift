import Auth
import Crypto
import CloudHooks
import Storage
import Telemetry

/// Rallies (API.md "Rallies"): anyone reads, admins write. A rally cannot be deleted, nor
/// shortened, while videos use it or its days. Every write runs through the hook pipeline
/// (the change log follows rallies there).
public final class Rallies: Sendable {
    /// The fields of a new rally, or the changes to one (nil: unchanged).
    public struct Input: Sendable {
        public var name: String?
        public var country: String?
        public var startDay: Int?
        public var endDay: Int?
        public init(name: String? = nil, country: String? = nil, startDay: Int? = nil, endDay: Int? = nil) {
            self.name = name
            self.country = country
            self.startDay = startDay
            self.endDay = endDay
        }
    }

    static let nameRule = TextRule("A rally name", characters: 1...100)
    /// A country is its English name.
    static let countryRule = TextRule("A country", characters: 1...60)

    private let database: any Database
    private let hooks: Hooks
    private let clock: any WallClock
    private let store = RallyStore()

    public init(database: any Database, hooks: Hooks, clock: any WallClock = SystemClock()) {
        self.database = database
        self.hooks = hooks
        self.clock = clock
    }

    /// Today's calendar day in UTC, the reference for every status.
    public var today: Int { Int(clock.nowMillis().floorDiv(86_400_000)) }

    public func rally(id: String) throws -> Rally {
        guard let rally = try database.read({ connection in try store.find(id: id, on: connection) }) else {
            throw VideoRegistryError.notFound
        }
        return rally
    }

    /// Every rally of a season (the year of its start date), or all rallies; by start date.
    public func list(season: Int?) throws -> [Rally] {
        let days = season.map { year in CalendarDays.firstDay(ofYear: year)...(CalendarDays.firstDay(ofYear: year + 1) - 1) }
        return try database.read { connection in try store.list(startingWithin: days, on: connection) }
    }

    public func create(_ input: Input, by identity: Accounts.Identity) throws -> Rally {
        try requireAdmin(identity)
        guard let name = input.name else { throw VideoRegistryError.validation(field: "name", message: "name is required.") }
        guard let country = input.country else { throw VideoRegistryError.validation(field: "country", message: "country is required.") }
        guard let startDay = input.startDay else { throw VideoRegistryError.validation(field: "startDate", message: "startDate is required.") }
        guard let endDay = input.endDay else { throw VideoRegistryError.validation(field: "endDate", message: "endDate is required.") }
        let now = clock.nowMillis()
        let rally = Rally(
            id: try SecureRandom.alphanumericID(), name: try Self.name(name), country: try Self.country(country),
            startDay: startDay, endDay: try Self.endDay(endDay, start: startDay), videosCount: 0, createdAt: now
        )
        try database.write { connection in try hooks.save(rally, on: connection) { try store.insert(rally, on: connection) } }
        return rally
    }

    public func update(id: String, _ input: Input, by identity: Accounts.Identity) throws -> Rally {
        try requireAdmin(identity)
        let now = clock.nowMillis()
        return try database.write { connection in
            guard let previous = try store.find(id: id, on: connection) else { throw VideoRegistryError.notFound }
            var rally = previous
            if let name = input.name { rally.name = try Self.name(name) }
            if let country = input.country { rally.country = try Self.country(country) }
            rally.startDay = input.startDay ?? rally.startDay
            rally.endDay = try Self.endDay(input.endDay ?? rally.endDay, start: rally.startDay)
            // Videos keep their day number; the rally must still have that day.
            if try store.highestVideoDay(rallyID: id, on: connection) > rally.dayCount {
                throw VideoRegistryError.conflict("Videos are registered on days these dates would remove.")
            }
            try hooks.save(rally, previous: previous, on: connection) { try store.update(rally, now: now, on: connection) }
            return rally
        }
    }

    public func delete(id: String, by identity: Accounts.Identity) throws {
        try requireAdmin(identity)
        try database.write { connection in
            guard let rally = try store.find(id: id, on: connection) else { throw VideoRegistryError.notFound }
            do {
                try hooks.delete(rally, on: connection) { try store.delete(id: id, on: connection) }
            } catch StorageError.foreignKeyViolation {
                throw VideoRegistryError.conflict("Videos still reference this rally; delete them first.")
            }
        }
    }

    private func requireAdmin(_ identity: Accounts.Identity) throws {
        guard identity.role == .admin else { throw VideoRegistryError.forbidden("Only admins can change rallies.") }
    }

    private static func name(_ value: String) throws -> String {
        try nameRule.validated(value) { VideoRegistryError.validation(field: "name", message: $0) }
    }

    private static func country(_ value: String) throws -> String {
        try countryRule.validated(value) { VideoRegistryError.validation(field: "country", message: $0) }
    }

    private static func endDay(_ end: Int, start: Int) throws -> Int {
        guard end >= start, end - start < Rally.maxDays else {
            throw VideoRegistryError.validation(field: "endDate", message: "A rally ends on or after its start, and spans at most 31 days.")
        }
        return end
    }
}

/// Calendar arithmetic on days since 1970-01-01 (proleptic Gregorian, UTC).
public enum CalendarDays {
    /// The day number of January 1st of `year`.
    public static func firstDay(ofYear year: Int) -> Int {
        // Howard Hinnant's days_from_civil for (year, 1, 1).
        let y = year - 1
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (1 + 9) + 2) / 5 // March-based day of year of January 1st
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (times before 1970 stay on the right day).
    func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
