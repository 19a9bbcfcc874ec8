import Auth
import JSON

/// A `_User` row as imported.
struct ImportedUser: Equatable {
    var id: String
    var username: String
    var email: String
    var emailVerified: Bool
    var displayName: String
    var passwordHash: String
    var createdAt: Int64
    var updatedAt: Int64
    /// The Facebook and Twitter ids kept from `authData` (`AuthDataMapper`), linked once the
    /// user's row is in.
    var identities: [ImportedIdentity] = []
}

/// `_User` -> `users`: the username must pass Pacenote's rule; a missing or malformed email
/// becomes `<objectId>@users.invalid`; a bcrypt `bcryptPassword` the server would verify (well
/// formed, cost at most `maximumCost`, see `PasswordHasher`) is kept as is, anything else
/// becomes an unusable hash (the user resets the password), with a note saying why; the
/// Facebook and Twitter ids of `authData` become the user's identities (`AuthDataMapper`).
enum UserMapper {
    static let displayNameLength = 100

    static func map(_ fields: ParseFields, now: Int64, maximumCost: Int = PasswordHasher().maximumCost) -> Mapped<ImportedUser> {
        let id: String
        switch fields.checkedObjectId {
        case .success(let checked): id = checked
        case .failure(let skip): return .skip(skip.reason)
        }
        guard let username = fields.string("username") else { return .skip("missing username") }
        guard Validation.isValidUsername(username) else { return .skip("invalid username") }
        var notes: [String] = []

        var email = fields.string("email").map(TextRules.trimmed) ?? ""
        if !Validation.isValidEmail(email) {
            notes.append(email.isEmpty ? "no email; stored as \(id)@users.invalid" : "invalid email; stored as \(id)@users.invalid")
            email = "\(id)@users.invalid"
        }

        var passwordHash = fields.string("bcryptPassword") ?? ""
        if let cost = PasswordHasher.cost(ofHash: passwordHash) {
            if cost > maximumCost {
                notes.append("bcrypt cost \(cost) is above the ceiling of \(maximumCost); password not kept, the user must reset it")
                passwordHash = unusablePasswordHash
            }
        } else {
            notes.append("no bcrypt password hash; the user must reset the password")
            passwordHash = unusablePasswordHash
        }

        var displayName = TextRules.trimmed(fields.string("displayName") ?? "").replacingNULs()
        if displayName.isEmpty { displayName = username }
        displayName = cut(displayName, to: displayNameLength)

        let times = Timestamps(fields, now: now)
        notes.append(contentsOf: times.notes)
        let linked = AuthDataMapper.identities(fields, userID: id, createdAt: times.createdAt)
        notes.append(contentsOf: linked.notes)
        return .row(ImportedUser(
            id: id, username: username, email: email, emailVerified: fields.bool("emailVerified") ?? false,
            displayName: displayName, passwordHash: passwordHash, createdAt: times.createdAt, updatedAt: times.updatedAt,
            identities: linked.identities
        ), notes: notes)
    }
}

/// `createdAt` and `updatedAt` of an object: a missing `updatedAt` is the creation time,
/// a missing `createdAt` the update time, and with neither the import time (noted).
struct Timestamps {
    var createdAt: Int64
    var updatedAt: Int64
    var notes: [String] = []

    init(_ fields: ParseFields, now: Int64) {
        let created = fields.millis("createdAt")
        let updated = fields.millis("updatedAt")
        createdAt = created ?? updated ?? now
        updatedAt = max(updated ?? createdAt, createdAt)
        if created == nil { notes.append("no valid createdAt; \(updated == nil ? "import time" : "updatedAt") used") }
    }
}

extension String {
    /// The text with NUL characters removed (the schema's text rules refuse them).
    func replacingNULs() -> String {
        unicodeScalars.contains(where: { $0.value == 0 }) ? String(String.UnicodeScalarView(unicodeScalars.filter { $0.value != 0 })) : self
    }
}
