import Auth

/// An `_Installation` row as imported; its user is checked against the database.
struct ImportedInstallation: Equatable {
    var id: String
    var userID: String
    var platform: String
    var deviceToken: String
    var locale: String?
    var createdAt: Int64
    var updatedAt: Int64
}

/// `_Installation` -> `installations`: `deviceType` ios or android, a device token, and a user.
enum InstallationMapper {
    static let platforms: Set<String> = ["ios", "android"]

    static func map(_ fields: ParseFields, now: Int64) -> Mapped<ImportedInstallation> {
        let id: String
        switch fields.checkedObjectId {
        case .success(let checked): id = checked
        case .failure(let skip): return .skip(skip.reason)
        }
        // NULs go, as from every stored text: PostgreSQL text cannot hold them.
        let token = TextRules.trimmed(fields.string("deviceToken") ?? "").replacingNULs()
        guard !token.isEmpty else { return .skip("missing deviceToken") }
        let platform = (fields.string("deviceType") ?? "").lowercased()
        guard platforms.contains(platform) else {
            return .skip(platform.isEmpty ? "missing deviceType" : "unsupported deviceType \(cut(platform, to: 20))")
        }
        guard let userID = fields.pointer("user") else { return .skip("no user") }
        let locale = fields.string("localeIdentifier").map { TextRules.trimmed($0).replacingNULs() }.flatMap { $0.isEmpty ? nil : cut($0, to: 35) }
        let times = Timestamps(fields, now: now)
        return .row(ImportedInstallation(
            id: id, userID: userID, platform: platform, deviceToken: token, locale: locale,
            createdAt: times.createdAt, updatedAt: times.updatedAt
        ), notes: times.notes)
    }
}
