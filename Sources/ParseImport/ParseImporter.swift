import Auth
import Community
import Foundation
import Imaging
import JSON
import Storage
import Telemetry

/// Imports a Parse export directory into a migrated Pacenote database.
///
/// Order: `_User` (with the identities of its `authData`), `Rallye`, `Video`, `Activity`,
/// `_Installation` (optional), each streamed and written in transactions of `batchSize` rows;
/// then every counter is recomputed with set-based SQL, and both timelines are rebuilt. The
/// import bypasses the hook pipeline (which would count and fan out row by row) and recomputes
/// what the hooks maintain. With `Options.filesDirectory`, a last pass attaches the users'
/// pictures (`PicturePass`).
///
/// Bad objects are skipped and reported, never fatal; a broken file stops that file only; a
/// picture file that cannot be used is reported with its user's objectId, never fatal either.
/// What stops the import is a database failure other than a refused row (disk full, I/O).
/// Runs synchronously on the calling thread. Not Sendable: one import, one thread.
public final class ParseImporter {
    public struct Options: Sendable {
        /// Rows per write transaction on SQLite. Every commit writes each page it dirtied to the
        /// WAL, and random objectIds dirty most pages of the id index in each batch: fewer,
        /// larger batches write those pages fewer times. On PostgreSQL a transaction is one
        /// statement of at most `postgresRowsPerTransaction` rows (PostgresImportBackend).
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
        /// `--files`: the directory holding the export's Parse files under their names, from
        /// which the users' pictures are attached. Nil: pictures are not touched.
        public var filesDirectory: String?
        /// Users per transaction of the picture pass: a batch's renditions are held in memory
        /// between its decoding and its write (two JPEGs of 400 and 100 px a user: tens of kilobytes).
        public var picturesPerTransaction = 50
        /// The largest picture file read, as an upload's body (`PUT /v1/users/me/avatar`).
        public var maxPictureBytes = Imaging.maxEncodedBytes
        /// A progress line every this many users with a picture field.
        public var pictureProgressInterval = 1_000
        public init() {}
    }

    /// The most rows a PostgreSQL import writes per transaction, whatever `batchSize` says.
    public static var postgresRowsPerTransaction: Int { PostgresImportBackend.rowsPerStatement }

    private let database: any Database
    private let directory: String
    private let options: Options
    private let clock: any WallClock
    private let log: (String) -> Void
    private var report = ImportReport()
    private var loggedEntries = 0
    private var started = 0.0

    /// - Parameter log: receives progress lines and the first `maxLoggedEntries` skip and
    ///   note lines (the command line sends them to stderr).
    public init(database: any Database, directory: String, options: Options = Options(), clock: any WallClock = SystemClock(), log: @escaping (String) -> Void) {
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
        // Opened first: a FILES that cannot be read stops the import before it changes anything.
        let files = try options.filesDirectory.map { path throws(ImportError) in try PictureFiles(path: path) }
        report = ImportReport()
        loggedEntries = 0
        started = monotonicSeconds()
        let backend = makeImportBackend(for: database.dialect)
        let undoTuning = try backend.prepareLoad(database, options: options)
        defer { undoTuning() }

        // Plain indexes of videos and activities are built once after the load (DeferredIndexes),
        // their foreign keys added back once on PostgreSQL (DeferredForeignKeys); restoring first
        // also repairs an earlier import that was killed half-way.
        let deferred: [any DeferredForLoad] = [DeferredIndexes(dialect: database.dialect), DeferredForeignKeys(dialect: database.dialect)]
        func restore(on connection: any DatabaseConnection) throws -> [String] { try deferred.flatMap { try $0.restore(on: connection) } }
        let dropped = try database.write { connection in
            _ = try restore(on: connection)
            return try deferred.flatMap { try $0.drop(on: connection) }
        }
        var restored = false
        defer {
            if !restored { _ = try? database.write { connection in try restore(on: connection) } }
        }

        let now = clock.nowMillis()
        let maximumCost = PasswordHasher(cost: options.bcryptCost).maximumCost
        try phase("_User") {
            try importFile(.user, backend: backend, map: { UserMapper.map($0, now: now, maximumCost: maximumCost) }, insert: backend.insert,
                           link: { users, outcomes, connection in try Self.linkIdentities(of: users, outcomes, backend: backend, on: connection) })
        }
        try phase("Rallye") { try importFile(.rally, backend: backend, map: { RallyMapper.map($0, now: now) }, insert: backend.insert) }
        try phase("Video") { try importFile(.video, backend: backend, map: { VideoMapper.map($0, now: now) }, insert: backend.insert) }
        try phase("Activity") { try importFile(.activity, backend: backend, map: { ActivityMapper.map($0, now: now) }, insert: backend.insert) }
        try phase("_Installation") { try importFile(.installation, backend: backend, map: { InstallationMapper.map($0, now: now) }, insert: backend.insert) }
        try phase("indexes") {
            let created = try backend.buildIndexes(database, options: options) { connection in try restore(on: connection) }
            restored = true
            progress("indexes rebuilt: \(created.joined(separator: ", ")) (set aside: \(dropped.count))")
            // The counters and the timelines are read from these tables, just loaded.
            try backend.refreshStatistics(of: Self.loadedTables, in: database)
        }
        try phase("counters") { try database.write { connection in try CounterRebuild.recompute(on: connection) } }
        // The import writes around the hooks, so the change log learns of its rallies and videos
        // here: a GET /v1/changes snapshot must meet every one (a re-run adds none twice).
        try phase("changes") { _ = try database.write { connection in try ChangeLog().recordMissing(now: now, on: connection) } }
        try phase("timelines") {
            // Committed in parts (see `rebuild(in:)`): a re-run after a crash here refills both timelines.
            let rows = try TimelineRebuild.rebuild(in: database, followingDepth: options.followingDepth) { self.progress($0) }
            report.homeTimelineRows = rows.home
            report.followingTimelineRows = rows.following
            try backend.refreshStatistics(of: ["home_timeline", "following_timeline"], in: database)
        }
        if let files {
            try phase("pictures") { try importPictures(from: files) }
        }
        return report
    }

    /// The tables the load writes (the search tables through triggers).
    static let loadedTables = ["users", "users_search", "identities", "rallies", "videos", "videos_search", "activities", "installations"]

    // MARK: Files

    /// What became of one element of a file, recorded once its transaction committed.
    private enum Written {
        /// `outcome` is nil while the row waits for its write; an element the mapper refused is
        /// `.skipped` at once. `links`: what became of a user's identities (`link` of `importFile`).
        case element(objectId: String, notes: [String], outcome: WriteOutcome?, links: [Linked] = [], bytesRead: Int)
        case stopped(ResultsReaderError)
    }

    /// One identity of a user, and what linking it did.
    struct Linked {
        let identity: ImportedIdentity
        let outcome: WriteOutcome
    }

    /// The identities of the users of one `insert` call whose row is in the database now (imported
    /// by this call, or present from an earlier run: a second run links what the first could
    /// not, and an export imported before identities were kept gets them), linked in the same
    /// transaction; per user, in the call's order.
    private static func linkIdentities(of users: [ImportedUser], _ outcomes: [WriteOutcome], backend: any ImportBackend,
                                       on connection: any DatabaseConnection) throws -> [[Linked]] {
        var identities: [ImportedIdentity] = []
        var holders: [Int] = []
        for (index, (user, outcome)) in zip(users, outcomes).enumerated() where outcome == .imported || outcome == .alreadyPresent {
            identities += user.identities
            holders += Array(repeating: index, count: user.identities.count)
        }
        var linked = Array(repeating: [Linked](), count: users.count)
        guard !identities.isEmpty else { return linked }
        let results = try backend.insert(identities, on: connection)
        precondition(results.count == identities.count, "one outcome per identity")
        for (holder, (identity, result)) in zip(holders, zip(identities, results)) {
            linked[holder].append(Linked(identity: identity, outcome: result))
        }
        return linked
    }

    /// Streams one class's file in transactions of the backend's `rowsPerTransaction` elements.
    /// The file is read and mapped on a thread of its own (`PreparedStream`); this thread only
    /// writes, in file order, `rowsPerWrite` rows per call of `insert` (the reading thread
    /// fills the next ones meanwhile).
    ///
    /// A transaction's closure may run more than once (PostgreSQL runs it again after a
    /// serialization failure or a lost session), so it only touches the database: the
    /// elements it took from the stream are kept in `taken` and handed to the next run, and
    /// what became of them is recorded in the report after the commit.
    ///
    /// `link`, when given, runs after each call of `insert` on the same connection, with its rows
    /// and outcomes, and answers for each row the rows it linked (a user's identities).
    private func importFile<Row: Sendable>(_ parseClass: ParseClass, backend: any ImportBackend, map: @escaping @Sendable (ParseFields) -> Mapped<Row>,
                                           insert: ([Row], any DatabaseConnection) throws -> [WriteOutcome],
                                           link: (([Row], [WriteOutcome], any DatabaseConnection) throws -> [[Linked]])? = nil) throws {
        let rowsPerTransaction = backend.rowsPerTransaction(options), rowsPerWrite = backend.rowsPerWrite
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
        // Two writes ahead: the next call's rows are prepared while the database runs this one.
        let stream = PreparedStream(reader: reader, maxObjectBytes: options.maxObjectBytes,
                                    readAhead: max(PreparedStream<Row>.defaultReadAhead, 2 * rowsPerWrite), map: map)
        // On a database failure, the reading thread is stopped before the error goes up.
        defer { stream.cancel() }
        var finished = false
        while !finished {
            var taken: [PreparedStream<Row>.Item] = []
            let written = try database.write { connection -> [Written] in
                var written: [Written] = []
                // Rows waiting for one call of `insert`, with their places in `written`.
                var pending: [Row] = []
                var places: [Int] = []
                func flush() throws {
                    guard !pending.isEmpty else { return }
                    let outcomes = try insert(pending, connection)
                    precondition(outcomes.count == pending.count, "one outcome per row")
                    let links = try link?(pending, outcomes, connection) ?? Array(repeating: [], count: pending.count)
                    precondition(links.count == pending.count, "the links of every row")
                    for (place, (outcome, linked)) in zip(places, zip(outcomes, links)) {
                        guard case .element(let id, let notes, _, _, let bytesRead) = written[place] else { continue }
                        written[place] = .element(objectId: id, notes: notes, outcome: outcome, links: linked, bytesRead: bytesRead)
                    }
                    pending.removeAll(keepingCapacity: true)
                    places.removeAll(keepingCapacity: true)
                }
                var index = 0
                finished = false
                while index < rowsPerTransaction {
                    let item: PreparedStream<Row>.Item
                    if index < taken.count {
                        item = taken[index]
                    } else if let next = stream.next() {
                        taken.append(next)
                        item = next
                    } else {
                        finished = true
                        break
                    }
                    index += 1
                    switch item {
                    case .stopped(let error):
                        // Commit what this transaction holds, then stop this file.
                        written.append(.stopped(error))
                        finished = true
                        try flush()
                        return written
                    case .element(.skip(let id, let reason), let bytesRead):
                        written.append(.element(objectId: id, notes: [], outcome: .skipped(reason), bytesRead: bytesRead))
                    case .element(.row(let row, let id, let notes), let bytesRead):
                        places.append(written.count)
                        written.append(.element(objectId: id, notes: notes, outcome: nil, bytesRead: bytesRead))
                        pending.append(row)
                        if pending.count == rowsPerWrite { try flush() }
                    }
                }
                try flush()
                return written
            }
            for element in written { record(element, parseClass) }
        }
    }

    /// The picture pass (`PicturePass`) over `_User.json`, read a second time; nothing when the
    /// file is missing or could not be opened (the `_User` phase reported it).
    private func importPictures(from files: PictureFiles) throws {
        report.pictures = ImportReport.PictureCounts()
        let path = (directory as NSString).appendingPathComponent(ParseClass.user.fileName)
        guard !report.missingFiles.contains(.user),
              let reader = try? ResultsReader(path: path, chunkSize: options.chunkSize, maxElementBytes: options.maxObjectBytes) else { return }
        let stream = PreparedStream(reader: reader, maxObjectBytes: options.maxObjectBytes, map: { PictureCandidate.map($0) })
        defer { stream.cancel() }
        let pass = PicturePass(database: database, files: files, pictures: ProfilePictures(database: database, clock: clock),
                               maxBytes: options.maxPictureBytes, usersPerTransaction: max(1, options.picturesPerTransaction))
        var considered = 0
        try pass.run(stream) { outcome in
            var counts = report.pictures ?? .init()
            let (objectId, problems, attachedInstead): (String, [PictureFileProblem], String?)
            switch outcome {
            case .attached(let id, let field, let tried):
                counts.attached += 1
                (objectId, problems, attachedInstead) = (id, tried, field)
            case .alreadyPresent(let id):
                counts.alreadyPresent += 1
                (objectId, problems, attachedInstead) = (id, [], nil)
            case .notAttached(let id, let tried):
                counts.notAttached += 1
                (objectId, problems, attachedInstead) = (id, tried, nil)
            }
            for problem in problems { counts.problems[problem.problem.category, default: 0] += 1 }
            report.pictures = counts
            for problem in problems {
                var reason = problem.field + (problem.name.map { " " + PictureFiles.reportable($0) } ?? "") + ": " + problem.problem.description
                if let attachedInstead { reason += " (\(attachedInstead) attached instead)" }
                add(.init(kind: .picture, parseClass: .user, objectId: objectId, reason: reason))
            }
            considered += 1
            if considered % options.pictureProgressInterval == 0 {
                progress("pictures: \(considered) users, \(counts.attached) attached, \(counts.alreadyPresent) already present, \(counts.notAttached) not attached")
            }
        }
    }

    /// Counts one element in the report, logs its skip or notes, and a progress line every
    /// `progressInterval` elements.
    private func record(_ written: Written, _ parseClass: ParseClass) {
        switch written {
        case .stopped(let error):
            report.fileErrors[parseClass] = String(describing: error)
            progress("\(parseClass.fileName) stopped: \(error)")
        case .element(let id, let notes, let outcome, let links, let bytesRead):
            let read = report.counts[parseClass, default: .init()].read + 1
            report.counts[parseClass, default: .init()].read = read
            switch outcome {
            case nil:
                preconditionFailure("recorded before its write")
            case .imported?:
                report.counts[parseClass, default: .init()].imported += 1
                for note in notes { add(.init(kind: .note, parseClass: parseClass, objectId: id, reason: note)) }
            case .alreadyPresent?:
                report.counts[parseClass, default: .init()].alreadyPresent += 1
            case .skipped(let reason)?:
                add(.init(kind: .skip, parseClass: parseClass, objectId: id, reason: reason))
            }
            for linked in links {
                let identity = linked.identity
                switch linked.outcome {
                case .imported: report.identities.imported += 1
                case .alreadyPresent: report.identities.alreadyPresent += 1
                case .skipped(let reason):
                    report.identities.notLinked += 1
                    // The subject is digits only (AuthDataMapper): safe to print, and no secret.
                    add(.init(kind: .identity, parseClass: parseClass, objectId: id, reason: "\(identity.provider.rawValue) \(identity.subject): \(reason)"))
                }
            }
            if read % options.progressInterval == 0 {
                let c = report[parseClass]
                progress("\(parseClass.rawValue): \(read) read (\(bytesRead / 1_048_576) MiB), \(c.imported) imported, \(c.alreadyPresent) already present, \(c.skipped) skipped")
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
        let start = monotonicSeconds()
        try body()
        let seconds = monotonicSeconds() - start
        report.phases.append((name, seconds))
        progress("\(name) done in \(ImportReport.seconds(seconds)) s")
    }

    private func progress(_ message: String) {
        log("[\(ImportReport.seconds(monotonicSeconds() - started)) s] \(message)")
    }
}

/// Why an import could not start.
public enum ImportError: Error, Sendable, CustomStringConvertible {
    case notADirectory(String)
    /// `--files` names no directory that can be read.
    case filesUnreadable(String, reason: String)

    public var description: String {
        switch self {
        case .notADirectory(let path): return "\(path) is not a directory"
        case .filesUnreadable(let path, let reason): return "--files \(path): \(reason)"
        }
    }
}
