/// What a mapper makes of one Parse object: a row to insert (with notes for the report,
/// such as a replaced email), or the reason it is skipped.
enum Mapped<Row> {
    case row(Row, notes: [String])
    case skip(String)
}

/// The bcrypt prefixes whose hashes Pacenote verifies as they are.
let bcryptPrefixes = ["$2a$", "$2b$", "$2y$"]
/// Stored for users whose Parse hash is not bcrypt: matches no password, so they reset it.
let unusablePasswordHash = "!"
