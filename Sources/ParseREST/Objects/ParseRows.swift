import Auth
import Storage
import VideoRegistry

/// A row of a served class as the facade reads it: the domain's value (read by the domain's
/// own column list and decoder) and `updated_at`, which Parse objects carry and the domain's
/// values do not.
struct UserRow: Sendable {
    let account: Account
    let updatedAt: Int64

    static let columns: SQL = "\(Account.columns), users.updated_at"

    init(row: Row) throws {
        account = try Account(row: row)
        // Account.columns are 16; updated_at follows them.
        updatedAt = try row.decode(at: 16)
    }
}

struct RallyRow: Sendable {
    let rally: Rally
    let updatedAt: Int64

    static let columns: SQL = "\(Rally.columns), updated_at"

    init(row: Row) throws {
        rally = try Rally(row: row)
        updatedAt = try row.decode("updated_at")
    }
}

struct VideoRow: Sendable {
    let video: Video
    let updatedAt: Int64

    static let columns: SQL = "\(Video.columns), v.updated_at"

    init(reading reader: inout RowReader) throws {
        video = try Video(reading: &reader)
        updatedAt = try reader.next()
    }
}
