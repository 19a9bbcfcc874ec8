import Foundation
import ParseImport
import Storage

/// `pacenote import-parse DIR`: import a Parse export (API.md "Command line").
///
/// Progress and the first 1,000 skip and note lines go to stderr, the summary to stdout.
/// Exit 0 when every file was read to its end (skipped objects are expected), 1 when a
/// file stopped early or could not be read.
enum ImportParseCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, flags: CommonOptions.flags.union(["batch-size", "following-depth", "bcrypt-cost"]))
        guard options.positional.count == 1 else { throw Options.UsageError(description: "import-parse takes one DIR") }
        var importOptions = ParseImporter.Options()
        importOptions.batchSize = try options.int("batch-size", default: importOptions.batchSize, range: 1...1_000_000)
        importOptions.followingDepth = try options.int("following-depth", default: importOptions.followingDepth, range: 0...100_000)
        // The server's cost (PACENOTE_BCRYPT_COST too), so the import keeps the hashes it will verify.
        importOptions.bcryptCost = try options.int("bcrypt-cost", default: importOptions.bcryptCost, range: 4...31)
        let configuration = try CommonOptions.configuration(options)
        let logger = try CommonOptions.logger(options)

        // The import opens the database itself rather than through Application: it needs one
        // writer and no server state, and its sorts (index builds, timelines) go to temporary
        // files so that memory stays bounded (see SQLiteDatabase.Configuration).
        let narrowed = try PrivateFiles.prepare(directory: configuration.dataDirectory, databaseFile: "pacenote.sqlite")
        if !narrowed.isEmpty { logger.warning("permissions tightened", ["paths": narrowed.joined(separator: ",")]) }
        var sqlite = SQLiteDatabase.Configuration(path: (configuration.dataDirectory as NSString).appendingPathComponent("pacenote.sqlite"))
        sqlite.readers = 1
        sqlite.synchronousFull = configuration.sqliteSynchronousFull
        sqlite.temporaryStorageInMemory = false
        let database = try SQLiteDatabase(configuration: sqlite)
        defer { database.close() }
        let applied = try Migrator(migrations: Schema.sqlite).migrate(database, now: SystemClock().nowMillis())
        if !applied.isEmpty { logger.info("migrations applied", ["names": applied.joined(separator: ",")]) }

        let importer = ParseImporter(database: database, directory: options.positional[0], options: importOptions) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let report = try importer.run()
        print(report.summary)
        let required = ParseClass.allCases.filter { !$0.isOptional }
        return report.fileErrors.isEmpty && report.missingFiles.allSatisfy({ !required.contains($0) }) ? 0 : 1
    }
}
