import Foundation
import SocialAPI
import Storage

/// `pacenote backup FILE`: a consistent copy of the SQLite database, taken with SQLite's
/// online backup API while a server keeps running on it.
enum BackupCommand {
    static let spec = CommandSpec(
        synopsis: "backup FILE [--data-dir ./data]",
        summary: "Writes a consistent copy of the SQLite database to FILE (which must not exist) while a server keeps running on it; prints FILE.",
        flags: CommonOptions.flags
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, spec: spec)
        guard options.positional.count == 1 else { throw Options.UsageError(description: "backup takes one FILE") }
        let target = options.positional[0]
        guard !FileManager.default.fileExists(atPath: target) else {
            throw Options.UsageError(description: "\(target) exists; backup will not overwrite it")
        }
        let application = try Application(configuration: try CommonOptions.configuration(options), logger: try CommonOptions.logger(options), openDatabase: try CommonOptions.openDatabase(options))
        defer { application.close() }
        guard let sqlite = application.database as? SQLiteDatabase else {
            throw Options.UsageError(description: "backup copies the embedded SQLite database; use pg_dump for PostgreSQL")
        }
        try sqlite.backup(to: target)
        print(target)
        return 0
    }
}
