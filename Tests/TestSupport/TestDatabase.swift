import Foundation
import Storage

/// Which database the storage-touching tests run on: SQLite by default, PostgreSQL when
/// `PACENOTE_TEST_DATABASE=postgres` (the second pass of `scripts/test`, beside the cluster
/// `scripts/postgres` starts and names in `PACENOTE_TEST_POSTGRES_URL`).
///
/// Domain tests take their database from here (`TemporaryDatabase`, and the end-to-end
/// servers), so one suite covers both dialects. A test about SQLite only (its files and their
/// modes, `backup`, WAL, PRAGMAs, FTS5) starts with `guard TestDatabase.isSQLite else { throw
/// XCTSkip(...) }` and a comment saying why: on the PostgreSQL pass it has nothing to check, it
/// already ran on the SQLite pass, and it is counted as skipped there, never as passed.
public enum TestDatabase {
    public static let dialect: SQLDialect = {
        switch ProcessInfo.processInfo.environment["PACENOTE_TEST_DATABASE"]?.lowercased() {
        case "postgres", "postgresql": return .postgres
        default: return .sqlite
        }
    }()

    public static var isSQLite: Bool { dialect == .sqlite }
    public static var isPostgres: Bool { dialect == .postgres }
}
