import Auth

/// A `Rallye` row as imported.
struct ImportedRally: Equatable {
    var id: String
    var name: String
    var country: String
    /// Days since 1970-01-01, UTC.
    var startDate: Int
    var endDate: Int
    var createdAt: Int64
    var updatedAt: Int64
}

/// `Rallye` -> `rallies`: `iniDate`/`endDate` become UTC calendar days; a rally spans 1 to 31 days.
enum RallyMapper {
    static let maxDays = 31

    static func map(_ fields: ParseFields, now: Int64) -> Mapped<ImportedRally> {
        let id: String
        switch fields.checkedObjectId {
        case .success(let checked): id = checked
        case .failure(let skip): return .skip(skip.reason)
        }
        let name = TextRules.trimmed(fields.string("name") ?? "").replacingNULs()
        guard !name.isEmpty else { return .skip("missing name") }
        let country = TextRules.trimmed(fields.string("country") ?? "").replacingNULs()
        guard let start = fields.days("iniDate") else { return .skip("missing or invalid iniDate") }
        guard let end = fields.days("endDate") else { return .skip("missing or invalid endDate") }
        guard end >= start else { return .skip("endDate before iniDate") }
        guard end - start < maxDays else { return .skip("spans \(end - start + 1) days, more than \(maxDays)") }
        let times = Timestamps(fields, now: now)
        return .row(ImportedRally(
            id: id, name: cut(name, to: 200), country: cut(country, to: 100), startDate: start, endDate: end,
            createdAt: times.createdAt, updatedAt: times.updatedAt
        ), notes: times.notes)
    }
}
