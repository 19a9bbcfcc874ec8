import Foundation
import SQLiteStorage
import SocialAPI
import Storage

/// `pacenote backup FILE`: a consistent copy of the SQLite database, taken with SQLite's
/// online backup API while a server keeps running on it; on PostgreSQL, `pg_dump` (PgDump).
enum BackupCommand {
    static let spec = CommandSpec(
        synopsis: "backup FILE [--data-dir ./data | --database postgres://...]",
        summary: """
            Writes a consistent copy of the database to FILE (which must not exist, and is created 0600) \
            while servers keep running on it; prints FILE. SQLite: a copy of the database file. \
            PostgreSQL: pg_dump's custom format (pg_dump must be on PATH; pg_restore reads it).
            """,
        flags: CommonOptions.flags
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, spec: spec)
        guard options.positional.count == 1 else { throw Options.UsageError(description: "backup takes one FILE") }
        let target = options.positional[0]
        guard !FileManager.default.fileExists(atPath: target) else {
            throw Options.UsageError(description: "\(target) exists; backup will not overwrite it")
        }
        if case .postgres(let url) = try DatabaseFactory.choice(options.string("database")) {
            try PgDump.dump(url: url, to: target)
            print(target)
            return 0
        }
        try CommandDatabase.with(options) { database in
            guard let sqlite = database as? SQLiteDatabase else {
                throw Options.UsageError(description: "backup copies the embedded SQLite database here; PostgreSQL is dumped by pg_dump")
            }
            try sqlite.backup(to: target)
        }
        print(target)
        return 0
    }
}
