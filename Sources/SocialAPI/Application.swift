import Auth
import CloudHooks
import Foundation
import Synchronization
import HTTP
import Storage
import Telemetry
import VideoRegistry

/// Pacenote assembled: the database, the domain services and the HTTP routes.
///
/// One screen shows every middleware in order and every route group bound (`makeResponder`).
public final class Application: Sendable {
    public struct Configuration: Sendable {
        /// Where SQLite keeps `pacenote.sqlite` (and, later, the cursor secret).
        public var dataDirectory: String = "./data"
        public var accounts = Accounts.Configuration()
        /// Lets anonymous clients GET rallies, videos, users and their lists (API.md).
        public var publicRead = false
        public var databaseReaders = 4
        public var sqliteSynchronousFull = false
        /// Distinct flags that hide a video automatically.
        public var autoHideFlags = 5
        /// The key that authenticates cursors (64 hex characters); generated into the data
        /// directory when not given. Give the same one to every process sharing a database.
        public var cursorSecret: String?
        /// Followers whose home gets a new video inside the write; beyond, and for every
        /// like, comment and follow, the outbox worker fans out.
        public var fanoutSyncLimit = 1_000
        /// How long a write waits for a database lock held elsewhere before it answers 503.
        public var busyTimeoutMillis = 5_000
        public init() {}
    }

    public let configuration: Configuration
    public let database: any Database
    public let accounts: Accounts
    public let hooks: Hooks
    public let rallies: Rallies
    public let videos: Videos
    let social: Social
    let cursors: CursorCodec
    public let metrics: MetricsRegistry
    public let logger: Logger
    private let maintenance: Mutex<Maintenance?> = Mutex(nil)
    private let outboxWorker: OutboxWorker

    /// Opens the database and applies pending migrations.
    public init(configuration: Configuration, logger: Logger, metrics: MetricsRegistry = MetricsRegistry(), clock: any Clock = SystemClock()) throws {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        database = try Self.openDatabase(configuration, logger: logger)
        let applied = try Migrator(migrations: Schema.sqlite).migrate(database, now: clock.nowMillis())
        if !applied.isEmpty { logger.info("migrations applied", ["names": applied.joined(separator: ",")]) }
        accounts = Accounts(database: database, configuration: configuration.accounts, clock: clock)
        let database = self.database
        metrics.gauge("pacenote_db_readers_in_use", help: "Database reader connections lent out now.") { Double(database.readerUsage.inUse) }
        metrics.gauge("pacenote_db_readers", help: "Database reader connections in the pool.") { Double(database.readerUsage.total) }
        // Following feeds lag by this backlog: an operator's first question after a burst of writes.
        metrics.gauge("pacenote_outbox_backlog", help: "Outbox jobs waiting or running (feed fan-out not done yet).") {
            Double((try? database.read { try Outbox().backlog(on: $0) }) ?? 0)
        }
        let timelines = Timelines(configuration: .init(syncLimit: configuration.fanoutSyncLimit))
        let registry = HookRegistry()
        // Feed hooks first: they must see a video's activities before the built-in cascade deletes them.
        FeedHooks.register(on: registry, timelines: timelines, clock: clock)
        BuiltInHooks.register(on: registry, configuration: .init(autoHideFlags: configuration.autoHideFlags))
        hooks = registry.build()
        let jobs = metrics
        outboxWorker = OutboxWorker(database: database, handlers: timelines.jobHandlers(clock: clock), clock: clock) { job, outcome, error in
            jobs.counter("pacenote_outbox_jobs_total", help: "Outbox jobs run, by kind and outcome.",
                         labels: [("kind", job.kind), ("outcome", outcome.rawValue)]).increment()
            if let error { logger.warning("outbox job failed", ["kind": job.kind, "attempts": String(job.attempts), "error": String(describing: error)]) }
        }
        rallies = Rallies(database: database, clock: clock)
        videos = Videos(database: database, hooks: hooks, clock: clock)
        social = Social(database: database, hooks: hooks, videos: videos, clock: clock)
        cursors = CursorCodec(key: try CursorSecret.load(dataDirectory: configuration.dataDirectory, configured: configuration.cursorSecret))
    }

    private static func openDatabase(_ configuration: Configuration, logger: Logger) throws -> any Database {
        // The directory 0700 and the files 0600: they hold emails and password hashes.
        let narrowed = try PrivateFiles.prepare(directory: configuration.dataDirectory, databaseFile: "pacenote.sqlite",
                                                otherFiles: [CursorSecret.fileName])
        if !narrowed.isEmpty {
            logger.warning("permissions tightened", ["paths": narrowed.joined(separator: ","), "reason": "readable by other users"])
        }
        var sqlite = SQLiteDatabase.Configuration(path: (configuration.dataDirectory as NSString).appendingPathComponent("pacenote.sqlite"))
        sqlite.readers = configuration.databaseReaders
        sqlite.synchronousFull = configuration.sqliteSynchronousFull
        sqlite.busyTimeoutMillis = configuration.busyTimeoutMillis
        return try SQLiteDatabase(configuration: sqlite)
    }

    /// The frozen HTTP responder: middleware in the order they run, then every route group.
    public func makeResponder() -> Responder<Accounts.Identity> {
        let router = RouterBuilder<Accounts.Identity>(logger: logger, mapError: APIErrors.map)
        router.add(middleware: MetricsMiddleware(registry: metrics))
        router.add(middleware: AuthMiddleware(accounts: accounts, publicRead: configuration.publicRead))

        OperationsRoutes(database: database, metrics: metrics).register(on: router)
        AccountRoutes(accounts: accounts, database: database, hooks: hooks).register(on: router)
        let lists = PagedLists(database: database, codec: cursors)
        UserRoutes(lists: lists, social: social).register(on: router)
        RallyRoutes(lists: lists, rallies: rallies).register(on: router)
        VideoRoutes(lists: lists, videos: videos, social: social).register(on: router)
        SearchRoutes(lists: lists).register(on: router)
        FeedRoutes(lists: lists).register(on: router)
        ModerationRoutes(database: database, videos: videos).register(on: router)
        return router.build()
    }

    /// Starts what a running server does in the background: the outbox worker and the
    /// periodic clean-up (`close` stops both).
    public func startBackgroundWork() {
        outboxWorker.start()
        maintenance.withLock { $0 = $0 ?? Maintenance(database: database, accounts: accounts, logger: logger) }
    }

    /// Stops background work (the outbox worker finishes the job in hand) and closes the database.
    public func close() {
        maintenance.withLock { $0?.stop(); $0 = nil }
        outboxWorker.stop()
        database.close()
    }
}
