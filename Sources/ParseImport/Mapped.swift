import Auth

/// What a mapper makes of one Parse object: a row to insert (with notes for the report,
/// such as a replaced email), or the reason it is skipped.
enum Mapped<Row> {
    case row(Row, notes: [String])
    case skip(String)
}

/// Why a mapper skips an object, as the report words it.
struct Skip: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
/// Stored for users whose Parse hash is not bcrypt: matches no password, so they reset it
/// (or sign in with an identity kept from `authData`).
let unusablePasswordHash = PasswordHasher.noPassword
