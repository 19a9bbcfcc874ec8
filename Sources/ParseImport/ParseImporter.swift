import Auth
import Foundation
import JSON
import SocialAPI
import Storage

/// Imports a Parse export directory into a migrated Pacenote database.
///
/// Order: `_User`, `Rallye`, `Video`, `Activity`, `_Installation` (optional), each streamed
/// and written in transactions of `batchSize` rows; then every counter is recomputed with
/// set-based SQL, and both timelines are rebuilt. The import bypasses the hook pipeline
/// (which would count and fan out row by row) and recomputes what the hooks maintain.
///
/// Bad objects are skipped and reported, never fatal; a broken file stops that file only.
/// What stops the import is a database failure other than a refused row (disk full, I/O).
/// Runs synchronously on the calling thread. Not Sendable: one import, one thread.
public final class ParseImporter {
    public struct Options: Sendable {
        /// Rows per write transaction. Every commit writes each page it dirtied to the WAL, and
        /// random objectIds dirty most pages of the id index in each batch: fewer, larger
        /// batches write those pages fewer times.
        public var batchSize = 100_000
        /// A progress line every this many objects.
        public var progressInterval = 50_000
        public var chunkSize = ResultsReader.defaultChunkSize
        /// Objects larger than this are skipped and reported.
        public var maxObjectBytes = ResultsReader.defaultMaxElementBytes
        /// Activities per reader in `following_timeline`.
        public var followingDepth = TimelineRebuild.defaultFollowingDepth
        /// The `--bcrypt-cost` the server runs with: imported hashes above its ceiling
        /// (`PasswordHasher.maximumCost`, 12 at the default of 10) are not kept. 4...31.
        public var bcryptCost = 10
        /// Skip and note lines written to the log before only counting.
        public var maxLoggedEntries = 1_000
        /// The writer's page cache while importing, in MiB (restored afterwards).
        public var cacheMiB = 256
        /// The writer's cache for temporary tables while importing, in MiB (restored afterwards).
        public var temporaryCacheMiB = 128
        /// The writer's page cache while building the deferred indexes, in MiB: also the
        /// size of each sorted run (see the "indexes" phase).
        public var indexSortCacheMiB = 2
        /// Worker threads SQLite may use for sorting while the indexes are built (PRAGMA threads).
        public var sortThreads = 2
        public init() {}
    }

    private let database: any Database
    private let directory: String
    private let options: Options
    private let clock: any Clock
    private let log: (String) -> Void
    private let writer = ImportWriter()
    private var report = ImportReport()
    private var loggedEntries = 0
    private var started = 0.0

    /// - Parameter log: receives progress lines and the first `maxLoggedEntries` skip and
    ///   note lines (the command line sends them to stderr).
    public init(database: any Database, directory: String, options: Options = Options(), clock: any Clock = SystemClock(), log: @escaping (String) -> Void) {
        self.database = database
        self.directory = directory
        self.options = options
        self.clock = clock
        self.log = log
    }

    /// Runs the whole import and answers the report.
    public func run() throws -> ImportReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImportError.notADirectory(directory)
        }
        report = ImportReport()
        loggedEntries = 0
        started = Self.monotonicSeconds()
        let previousCache = try database.write { connection in
            let previous = try connection.fetchValue("PRAGMA cache_size", as: Int.self)
            try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(options.cacheMiB * 1024)"))
            return previous
        }
        // The following timeline's work tables are temporary (in files, see ImportParseCommand);
        // with SQLite's default 2 MB cache for them, their 100 MB were read back from the file
        // page by page.
        let previousTempCache = try database.write { connection in
            let previous = try connection.fetchValue("PRAGMA temp.cache_size", as: Int.self)
            try connection.execute(SQL(unsafeSQL: "PRAGMA temp.cache_size = -\(options.temporaryCacheMiB * 1024)"))
            return previous
        }
        defer {
            _ = try? database.write { connection in
                if let previousCache { try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = \(previousCache)")) }
                if let previousTempCache { try connection.execute(SQL(unsafeSQL: "PRAGMA temp.cache_size = \(previousTempCache)")) }
            }
        }

        // Plain indexes of videos and activities are built once after the load (DeferredIndexes);
        // restoring first also repairs an earlier import that was killed half-way.
        let indexes = DeferredIndexes()
        let dropped = try database.write { connection in
            try indexes.restore(on: connection)
            return try indexes.drop(on: connection)
        }
        var restored = false
        defer {
            if !restored { _ = try? database.write { connection in try indexes.restore(on: connection) } }
        }

        let now = clock.nowMillis()
        let maximumCost = PasswordHasher(cost: options.bcryptCost).maximumCost
        try phase("_User") { try importFile(.user, map: { UserMapper.map($0, now: now, maximumCost: maximumCost) }, insert: writer.insert) }
        try phase("Rallye") { try importFile(.rally, map: { RallyMapper.map($0, now: now) }, insert: writer.insert) }
        try phase("Video") { try importFile(.video, map: { VideoMapper.map($0, now: now) }, insert: writer.insert) }
        try phase("Activity") { try importFile(.activity, map: { ActivityMapper.map($0, now: now) }, insert: writer.insert) }
        try phase("_Installation") { try importFile(.installation, map: { InstallationMapper.map($0, now: now) }, insert: writer.insert) }
        try phase("indexes") {
            // Building an index is mostly sorting. With a small page cache SQLite sorts in
            // 2 MiB runs, which worker threads sort beside the main one before a merge; one
            // run the size of the 256 MiB cache is sorted on one core, and more slowly (the
            // large export's indexes: 20 s with the big cache, 11 s with this).
            try database.write { connection in
                try connection.execute(SQL(unsafeSQL: "PRAGMA threads = \(options.sortThreads)"))
                try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(options.indexSortCacheMiB * 1024)"))
            }
            defer {
                _ = try? database.write { connection in
                    try connection.execute("PRAGMA threads = 0")
                    try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(options.cacheMiB * 1024)"))
                }
            }
            let created = try database.write { connection in try indexes.restore(on: connection) }
            restored = true
            progress("indexes rebuilt: \(created.joined(separator: ", ")) (set aside: \(dropped.count))")
        }
        try phase("counters") { try database.write { connection in try CounterRebuild.recompute(on: connection) } }
        try phase("timelines") {
            // Committed in parts (see `rebuild(in:)`): a re-run after a crash here refills both timelines.
            let rows = try TimelineRebuild.rebuild(in: database, followingDepth: options.followingDepth) { self.progress($0) }
            report.homeTimelineRows = rows.home
            report.followingTimelineRows = rows.following
        }
        return report
    }

    // MARK: Files

    /// Streams one class's file in batches of `batchSize` rows, each batch one transaction.
    /// The file is read and mapped on a thread of its own (`PreparedStream`); this thread
    /// only writes, in file order.
    private func importFile<Row: Sendable>(_ parseClass: ParseClass, map: @escaping @Sendable (ParseFields) -> Mapped<Row>,
                                           insert: (Row, any DatabaseConnection) throws -> WriteOutcome) throws {
        let path = (directory as NSString).appendingPathComponent(parseClass.fileName)
        guard FileManager.default.fileExists(atPath: path) else {
            report.missingFiles.append(parseClass)
            progress("\(parseClass.fileName): not in the export\(parseClass.isOptional ? "" : " (expected)")")
            return
        }
        let reader: ResultsReader
        do {
            reader = try ResultsReader(path: path, chunkSize: options.chunkSize, maxElementBytes: options.maxObjectBytes)
        } catch {
            report.fileErrors[parseClass] = error.description
            progress("\(parseClass.fileName): \(error)")
            return
        }
        let stream = PreparedStream(reader: reader, maxObjectBytes: options.maxObjectBytes, map: map)
        // On a database failure, the reading thread is stopped before the error goes up.
        defer { stream.cancel() }
        var finished = false
        while !finished {
            try database.write { connection in
                var rows = 0
                while rows < options.batchSize {
                    switch stream.next() {
                    case nil:
                        finished = true
                        return
                    case .stopped(let error)?:
                        // Commit what this batch holds, then stop this file.
                        report.fileErrors[parseClass] = String(describing: error)
                        progress("\(parseClass.fileName) stopped: \(error)")
                        finished = true
                        return
                    case .element(let prepared, let bytesRead)?:
                        rows += 1
                        let read = report.counts[parseClass, default: .init()].read + 1
                        report.counts[parseClass, default: .init()].read = read
                        try write(prepared, parseClass, connection, insert)
                        if read % options.progressInterval == 0 {
                            let c = report[parseClass]
                            progress("\(parseClass.rawValue): \(read) read (\(bytesRead / 1_048_576) MiB), \(c.imported) imported, \(c.alreadyPresent) already present, \(c.skipped) skipped")
                        }
                    }
                }
            }
        }
    }

    /// Writes one prepared element and records what became of it.
    private func write<Row>(_ prepared: Prepared<Row>, _ parseClass: ParseClass, _ connection: any DatabaseConnection,
                            _ insert: (Row, any DatabaseConnection) throws -> WriteOutcome) throws {
        switch prepared {
        case .skip(let id, let reason):
            add(.init(kind: .skip, parseClass: parseClass, objectId: id, reason: reason))
        case .row(let row, let id, let notes):
            switch try insert(row, connection) {
            case .imported:
                report.counts[parseClass, default: .init()].imported += 1
                for note in notes { add(.init(kind: .note, parseClass: parseClass, objectId: id, reason: note)) }
            case .alreadyPresent:
                report.counts[parseClass, default: .init()].alreadyPresent += 1
            case .skipped(let reason):
                add(.init(kind: .skip, parseClass: parseClass, objectId: id, reason: reason))
            }
        }
    }

    // MARK: Reporting

    private func add(_ entry: ImportReport.Entry) {
        report.add(entry)
        if loggedEntries < options.maxLoggedEntries {
            log(entry.description)
        } else if loggedEntries == options.maxLoggedEntries {
            log("(more than \(options.maxLoggedEntries) skips and notes: the rest are only counted, see the summary)")
        }
        loggedEntries += 1
    }

    private func phase(_ name: String, _ body: () throws -> Void) throws {
        let start = Self.monotonicSeconds()
        try body()
        let seconds = Self.monotonicSeconds() - start
        report.phases.append((name, seconds))
        progress("\(name) done in \(ImportReport.seconds(seconds)) s")
    }

    private func progress(_ message: String) {
        log("[\(ImportReport.seconds(Self.monotonicSeconds() - started)) s] \(message)")
    }

    static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Why an import could not start.
public enum ImportError: Error, Sendable, CustomStringConvertible {
    case notADirectory(String)

    public var description: String {
        switch self {
        case .notADirectory(let path): return "\(path) is not a directory"
        }
    }
}
