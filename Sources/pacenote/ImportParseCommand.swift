import Foundation
import ParseImport
import PostgresStorage
import SQLiteStorage
import Schema
import Storage
import Telemetry

/// `pacenote import-parse DIR`: import a Parse export (API.md "Command line").
///
/// Progress and the first 1,000 skip, note and picture lines go to stderr, the summary to
/// stdout. Exit 0 when every file was read to its end (skipped objects are expected, and so
/// are picture files missing or not images), 1 when a file stopped early or could not be read.
enum ImportParseCommand {
    static let spec = CommandSpec(
        synopsis: "import-parse DIR [--files FILES] [--data-dir ./data | --database postgres://...]",
        summary: """
            Imports a Parse export (_User.json, Rallye.json, Video.json, Activity.json and, when present, _Installation.json in DIR): \
            ids and bcrypt hashes are kept, counters recomputed, feeds built; every object skipped is reported with its id and why. \
            With --files, each user's profilePictureMedium (else profilePictureSmall) file is taken from FILES by its Parse name \
            and made into their picture like an upload; a file missing or not an image is reported with the user's objectId. \
            Running it twice adds nothing. Exit 0 when every file was read to its end.
            """,
        flags: CommonOptions.flags + [
            .init("files", "FILES", "where the export's Parse files were saved, by name: attaches the users' profile pictures (without it, pictures are not touched)"),
            .init("batch-size", "N", "objects written per transaction (\(ParseImporter.Options().batchSize); on PostgreSQL at most \(ParseImporter.postgresRowsPerTransaction))"),
            .init("following-depth", "N", "latest activities of each followed account copied into following feeds (\(ParseImporter.Options().followingDepth))"),
            .init("bcrypt-cost", "N", "the server's bcrypt cost: imported hashes costlier than max(12, N) are not kept (10)"),
        ]
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, spec: spec)
        guard options.positional.count == 1 else { throw Options.UsageError(description: "import-parse takes one DIR") }
        var importOptions = ParseImporter.Options()
        importOptions.batchSize = try options.int("batch-size", default: importOptions.batchSize, range: 1...1_000_000)
        importOptions.followingDepth = try options.int("following-depth", default: importOptions.followingDepth, range: 0...100_000)
        // The server's cost (PACENOTE_BCRYPT_COST too), so the import keeps the hashes it will verify.
        importOptions.bcryptCost = try options.int("bcrypt-cost", default: importOptions.bcryptCost, range: 4...31)
        if let files = options.string("files") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: files, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw Options.UsageError(description: "--files \(files) is not a directory")
            }
            importOptions.filesDirectory = files
        }
        let logger = try CommonOptions.logger(options)
        let database = try openDatabase(options, logger: logger)
        defer { database.close() }
        let applied = try Migrator(migrations: Schema.migrations(for: database.dialect)).migrate(database, now: SystemClock().nowMillis())
        if !applied.isEmpty { logger.info("migrations applied", ["names": applied.joined(separator: ",")]) }

        let importer = ParseImporter(database: database, directory: options.positional[0], options: importOptions) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let report = try importer.run()
        print(report.summary)
        let required = ParseClass.allCases.filter { !$0.isOptional }
        return report.fileErrors.isEmpty && report.missingFiles.allSatisfy({ !required.contains($0) }) ? 0 : 1
    }

    /// The import opens the database itself rather than through Application: it needs one
    /// writer and no server state.
    private static func openDatabase(_ options: Options, logger: Logger) throws -> any Database {
        switch try DatabaseFactory.choice(options.string("database")) {
        case .sqlite:
            // Its sorts (index builds, timelines) go to temporary files, so that memory stays
            // bounded (see SQLiteDatabase.Configuration).
            let configuration = try CommonOptions.configuration(options)
            let narrowed = try PrivateFiles.prepare(directory: configuration.dataDirectory, databaseFile: "pacenote.sqlite")
            if !narrowed.isEmpty { logger.warning("permissions tightened", ["paths": narrowed.joined(separator: ",")]) }
            var sqlite = SQLiteDatabase.Configuration(path: (configuration.dataDirectory as NSString).appendingPathComponent("pacenote.sqlite"))
            sqlite.readers = 1
            sqlite.synchronousFull = configuration.sqliteSynchronousFull
            sqlite.walSyncMillis = configuration.sqliteWALSyncMillis
            sqlite.temporaryStorageInMemory = false
            return try SQLiteDatabase(configuration: sqlite)
        case .postgres(let url):
            // One session does every write in order, as on SQLite. No statement timeout: an
            // index build or a timeline statement over millions of rows runs for minutes.
            var postgres = PostgresDatabase.Configuration(url: url)
            postgres.readers = 1
            postgres.writers = 1
            postgres.statementTimeoutMillis = 0
            return try PostgresDatabase(configuration: postgres)
        }
    }
}
