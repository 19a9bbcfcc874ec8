import Auth
import Community
import Delivery
import Foundation
import HTTP
import CloudHooks
import Imaging
import ParseREST
import PublicWeb
import SQLiteStorage
import Schema
import Storage
import Synchronization
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
        /// SQLiteDatabase.Configuration.walSyncMillis: under NORMAL, the power-loss window.
        public var sqliteWALSyncMillis = 200
        /// Distinct flags that hide a video automatically.
        public var autoHideFlags = 5
        /// The key that authenticates cursors (64 hex characters); generated into the data
        /// directory when not given. Give the same one to every process sharing a database.
        public var cursorSecret: String?
        /// Followers whose home gets a new video inside the write; beyond, and for every
        /// like, comment and follow, the outbox worker fans out.
        public var fanoutSyncLimit = 1_000
        /// Followers from which an account is hot: its videos are merged into its followers'
        /// home feeds at read time, never fanned out (`Timelines`).
        public var fanoutHotFollowers = TimelineRebuild.defaultHotFollowers
        /// How long a write waits for a database lock held elsewhere before it answers 503.
        public var busyTimeoutMillis = 5_000
        /// Where notifications are pushed; a platform without a provider gets inbox rows only.
        public var push = PushServices()
        /// Verification and reset mails; nil without `--smtp-url` (the mail endpoints then answer 503).
        public var mail: MailService?
        /// The first retry of a failed mail comes this long after it (doubling after each).
        public var mailRetryBaseMillis: Int64 = 30_000
        /// API.md "Limits on abuse".
        public var limits = RateLimits()
        /// The outbox lanes whose workers this process runs (`serve --outbox-workers`); servers
        /// sharing one PostgreSQL may run any of them, several at once.
        public var outboxLanes = Set(OutboxLane.all)
        /// `serve --metrics-token`: when set, `/metrics` needs `Authorization: Bearer <token>`.
        public var metricsToken: String?
        /// `serve --metrics-listen`: `/metrics` is served by `makeMetricsResponder()` on a
        /// listener of its own, and `makeResponder()` does not route it (404).
        public var metricsOnOwnListener = false
        /// `serve --public-url`: the base of absolute links (pictures' URLs in user objects;
        /// mails take theirs from `mail`). Nil: user objects carry paths starting with `/`.
        public var publicURL: String?
        /// `serve --picture-cache-mb`: memory for profile-picture renditions served recently.
        public var pictureCacheBytes = 32 * 1024 * 1024
        /// `serve --picture-memory-mb`: the memory decoding uploads may take at once
        /// (`DecodeBudget`; docs/deployment.md "Profile pictures" sizes it).
        public var pictureMemoryBytes = Imaging.defaultBudgetBytes
        /// Who checks each sign-in provider's tokens (`serve` builds them from its provider
        /// flags with SignInProviders); a provider without one answers 503 `unavailable`.
        public var identityVerifiers: [IdentityProvider: any IdentityVerifier] = [:]
        /// `serve --changes-retention`: how long the change log keeps a deleted object's
        /// tombstone; a `since` token older than the purge is 410 `sync_expired`.
        public var changesRetentionMillis: Int64 = 30 * 86_400_000
        /// `serve --maintenance-interval`: how often the periodic clean-up runs (expired
        /// sessions, done jobs, the change log's tombstones).
        public var maintenanceIntervalMillis: Int64 = 600_000
        /// `serve --parse-app-id` (and its keys): the Parse REST API under `/parse/` and `/1/`;
        /// nil: off, and those paths are 404 like any other unknown path.
        public var parse: ParseKeys?
        /// `serve --public-web` (with `--public-url` and the app-link flags): the public pages
        /// and the well-known files; nil: off, those paths 404, and `shareUrl` is null.
        public var publicWeb: PublicWebSettings?
        public init() {}
    }

    /// The push services `serve` was given (API.md "Command line": Push).
    public struct PushServices: Sendable {
        public var providers: [PushPlatform: any PushProvider] = [:]
        /// The operator's relay: every notification is also POSTed there, signed.
        public var webhook: WebhookNotifier?
        /// `--moderation-webhook-url`: where moderation alerts are POSTed, signed (`ModerationAlerts`).
        public var moderationWebhook: WebhookNotifier?
        /// How long a delivery may take before it counts as failed; its lease is three times that.
        public var attemptMillis: Int64 = 10_000
        public init() {}
    }

    public let configuration: Configuration
    public let database: any Database
    public let accounts: Accounts
    public let hooks: Hooks
    public let rallies: Rallies
    public let videos: Videos
    let social: Social
    let moderation: Moderation
    let cursors: CursorCodec
    public let metrics: MetricsRegistry
    public let logger: Logger
    let installations: Installations
    let announcements: Announcements
    let clock: any WallClock
    private let maintenance: Mutex<Maintenance?> = Mutex(nil)
    /// One worker per outbox lane: feed fan-out, notification broadcasts, deliveries.
    private let feedWorker: OutboxWorker
    private let notifyWorker: OutboxWorker
    private let deliveryWorker: DeliveryWorker
    private let mailWorker: DeliveryWorker?
    let limits: AbuseLimits
    let pictures: ProfilePictures
    let pictureCache: PictureCache

    /// Opens the database and applies pending migrations.
    ///
    /// Which database is the caller's choice (`pacenote` picks the driver from `--database`);
    /// `openDatabase` defaults to the embedded SQLite in the data directory. The migrations
    /// applied are those of the database's dialect.
    public init(
        configuration: Configuration, logger: Logger, metrics: MetricsRegistry = MetricsRegistry(), clock: any WallClock = SystemClock(),
        openDatabase: (Configuration, Logger) throws -> any Database = Application.openSQLite
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        database = try openDatabase(configuration, logger)
        let applied = try Migrator(migrations: Schema.migrations(for: database.dialect)).migrate(database, now: clock.nowMillis())
        if !applied.isEmpty { logger.info("migrations applied", ["names": applied.joined(separator: ",")]) }
        let cursorKey = try CursorSecret.load(dataDirectory: configuration.dataDirectory, configured: configuration.cursorSecret)
        var accountSettings = configuration.accounts
        // Mail links are rebuilt from the cursor secret, which every process on one database shares.
        accountSettings.tokenMint = accountSettings.tokenMint ?? AccountTokenMint.derived(from: cursorKey)
        accounts = Accounts(database: database, configuration: accountSettings, clock: clock)
        limits = AbuseLimits(configuration: configuration.limits, metrics: metrics, clock: clock)
        let database = self.database
        metrics.gauge("pacenote_db_readers_in_use", help: "Database reader connections lent out now.") { Double(database.readerUsage.inUse) }
        metrics.gauge("pacenote_db_readers", help: "Database reader connections in the pool.") { Double(database.readerUsage.total) }
        database.registerMetrics(in: metrics)
        // Following feeds lag by the feed lane's backlog: an operator's first question after a burst of writes.
        metrics.gauge("pacenote_outbox_backlog", help: "Outbox jobs waiting or running, all lanes.") {
            Double((try? database.read { try Outbox().backlog(on: $0) }) ?? 0)
        }
        for lane in OutboxLane.all {
            metrics.gauge("pacenote_outbox_lane_backlog", help: "Outbox jobs waiting or running, by lane.", labels: [("lane", lane.rawValue)]) {
                Double((try? database.read { try Outbox().backlog(lane: lane, on: $0) }) ?? 0)
            }
        }
        let timelines = Timelines(configuration: .init(syncLimit: configuration.fanoutSyncLimit, hotFollowers: configuration.fanoutHotFollowers))
        var notifications = Notifier.Configuration()
        notifications.platforms = Set(configuration.push.providers.keys)
        notifications.webhook = configuration.push.webhook != nil
        let notifier = Notifier(configuration: notifications, clock: clock)
        let registry = HookRegistry()
        // Feed hooks first: they must see a video's activities before the built-in cascade deletes them.
        FeedHooks.register(on: registry, timelines: timelines, clock: clock)
        // Alerts only where a moderation webhook is set: none are queued for nobody to take.
        let alerts = configuration.push.moderationWebhook.map { _ in ModerationAlerts(clock: clock) }
        BuiltInHooks.register(on: registry, configuration: .init(autoHideFlags: configuration.autoHideFlags, alerts: alerts), clock: clock)
        notifier.register(on: registry)
        // After the built-in hooks, so a flag's count includes it.
        alerts?.register(on: registry)
        hooks = registry.build()
        // Every lane's worker counts its jobs in one family of /metrics.
        let countJob: @Sendable (OutboxJob, OutboxWorker.Outcome) -> Void = { job, outcome in
            metrics.counter("pacenote_outbox_jobs_total", help: "Outbox jobs run, by kind and outcome.",
                            labels: [("kind", job.kind), ("outcome", outcome.rawValue)]).increment()
        }
        let observeJob: @Sendable (OutboxJob, OutboxWorker.Outcome, (any Error)?) -> Void = { job, outcome, error in
            countJob(job, outcome)
            if let error { logger.warning("outbox job failed", ["kind": job.kind, "attempts": String(job.attempts), "error": String(describing: error)]) }
        }
        // Each lane's table is built from its job kinds; a kind handled twice stops the start.
        feedWorker = OutboxWorker(database: database, jobs: try timelines.jobs(clock: clock), clock: clock, observe: observeJob)
        var notifyLane = OutboxWorker.Configuration()
        notifyLane.lane = .notify
        announcements = Announcements(database: database, notifier: notifier, clock: clock)
        notifyWorker = OutboxWorker(database: database, jobs: try notifier.jobs().merging(try announcements.jobs()), clock: clock,
                                    configuration: notifyLane, observe: observeJob)
        let dispatcher = PushDispatcher(database: database, providers: configuration.push.providers, webhook: configuration.push.webhook,
                                        moderationWebhook: configuration.push.moderationWebhook, clock: clock, metrics: metrics)
        var pushLane = DeliveryWorker.Configuration()
        pushLane.leaseMillis = configuration.push.attemptMillis * 3
        // A push that failed on its way (a timeout, a dropped connection, a 5xx) is retried; why
        // is logged, one line a second per kind at most, since a service that is down fails
        // every push of every batch.
        let retries = RateLimitedLog(logger: logger)
        deliveryWorker = DeliveryWorker(database: database, clock: clock, configuration: pushLane, deliver: dispatcher.deliver) { job, result, outcome in
            countJob(job, outcome)
            switch outcome {
            case .dead: logger.warning("delivery given up", ["kind": job.kind, "seq": String(job.seq), "result": "\(result)"])
            case .retry: retries.warning(kind: job.kind, "delivery to be retried", ["kind": job.kind, "seq": String(job.seq), "result": "\(result)"])
            case .done: break
            }
        }
        let accounts = self.accounts
        mailWorker = configuration.mail.map { service in
            let dispatcher = MailDispatcher(database: database, accounts: accounts, service: service, clock: clock, metrics: metrics)
            var mailLane = DeliveryWorker.Configuration()
            mailLane.lane = .mail
            mailLane.batch = 20
            mailLane.leaseMillis = Int64(service.client.configuration.timeoutMillis) * 20 * 2
            mailLane.retry.baseMillis = configuration.mailRetryBaseMillis
            mailLane.retry.maxAttempts = 12
            return DeliveryWorker(database: database, clock: clock, configuration: mailLane, deliver: dispatcher.deliver) { job, result, outcome in
                countJob(job, outcome)
                if outcome != .done { logger.warning("mail not sent", ["seq": String(job.seq), "outcome": outcome.rawValue, "result": "\(result)"]) }
            }
        }
        installations = Installations(database: database, clock: clock)
        rallies = Rallies(database: database, hooks: hooks, clock: clock)
        videos = Videos(database: database, hooks: hooks, clock: clock)
        social = Social(database: database, hooks: hooks, videos: videos, clock: clock)
        moderation = Moderation(database: database, accounts: accounts, hooks: hooks, videos: videos, social: social, clock: clock)
        cursors = CursorCodec(key: cursorKey)
        pictures = ProfilePictures(database: database, clock: clock, budget: DecodeBudget(capacity: configuration.pictureMemoryBytes))
        pictureCache = PictureCache(budgetBytes: configuration.pictureCacheBytes, metrics: metrics)
        PictureLinks.configure(publicURL: configuration.publicURL)
        ShareLinks.configure(publicURL: configuration.publicWeb?.publicURL.text)
    }

    /// `pacenote user reset-link`: a reset link for the account with this username (any case).
    public func resetLink(username: String, publicURL: String) throws -> String {
        let (_, token) = try accounts.makeResetToken(username: username)
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/account/reset?token=\(token)"
    }

    /// The embedded default: `pacenote.sqlite` in the data directory, made private first.
    public static func openSQLite(_ configuration: Configuration, logger: Logger) throws -> any Database {
        // The directory 0700 and the files 0600: they hold emails and password hashes.
        let narrowed = try PrivateFiles.prepare(directory: configuration.dataDirectory, databaseFile: "pacenote.sqlite",
                                                otherFiles: [CursorSecret.fileName])
        if !narrowed.isEmpty {
            logger.warning("permissions tightened", ["paths": narrowed.joined(separator: ","), "reason": "readable by other users"])
        }
        var sqlite = SQLiteDatabase.Configuration(path: (configuration.dataDirectory as NSString).appendingPathComponent("pacenote.sqlite"))
        sqlite.readers = configuration.databaseReaders
        sqlite.synchronousFull = configuration.sqliteSynchronousFull
        sqlite.walSyncMillis = configuration.sqliteWALSyncMillis
        sqlite.busyTimeoutMillis = configuration.busyTimeoutMillis
        return try SQLiteDatabase(configuration: sqlite)
    }

    /// The frozen HTTP responder: middleware in the order they run, then every route group.
    public func makeResponder() -> Responder<Accounts.Identity> {
        let router = RouterBuilder<Accounts.Identity>(logger: logger, mapError: APIErrors.map)
        router.add(middleware: MetricsMiddleware(registry: metrics))
        router.add(middleware: RateLimitMiddleware(limits: limits, stage: .beforeAuth))
        let auth = AuthMiddleware(accounts: accounts, publicRead: configuration.publicRead)
        router.add(middleware: auth)
        // The same session check on the head of a request whose body may be large, before the body.
        router.add(headCheck: auth)
        router.add(middleware: RateLimitMiddleware(limits: limits, stage: .afterAuth))
        // Innermost, so it sees the identity and the handler's body; the Parse facade's reads
        // depend on its own session header, so they are left as they were.
        router.add(middleware: ConditionalGetMiddleware(skippingPrefixes: ParseFacade.prefixes))

        operations.register(on: router, servesMetrics: !configuration.metricsOnOwnListener)
        ConsoleRoutes().register(on: router)
        let mail = MailQueue(service: configuration.mail, accounts: accounts, clock: clock)
        // The read side: each resource's read model opens its read transaction, builds its
        // stores and passes the presenter's selection; the routes parse, authorize and map.
        let lists = PagedLists(database: database, codec: cursors, clock: clock)
        let userReads = UserReads(lists: lists)
        let videoReads = VideoReads(lists: lists, videos: videos)
        let providerTokens = ProviderTokens(verifiers: configuration.identityVerifiers, logger: logger)
        let accountRoutes = AccountRoutes(accounts: accounts, users: userReads, hooks: hooks, moderation: moderation, mail: mail, limits: limits,
                                          pictureCache: pictureCache, tokens: providerTokens)
        accountRoutes.register(on: router)
        IdentityRoutes(accounts: accounts, tokens: providerTokens, mail: mail, limits: limits).register(on: router)
        PictureRoutes(pictures: pictures, accounts: accounts, users: userReads, cache: pictureCache, clock: clock).register(on: router)
        let recovery = AccountRecoveryRoutes(accounts: accounts, mail: mail, limits: limits)
        recovery.register(on: router)
        ExportRoutes(accounts: accounts, database: database, clock: clock).register(on: router)
        AccountPageRoutes().register(on: router)
        UserRoutes(users: userReads, videos: videoReads, codec: cursors, social: social).register(on: router)
        RallyRoutes(videos: videoReads, codec: cursors, rallies: rallies).register(on: router)
        VideoRoutes(reads: videoReads, codec: cursors, videos: videos, social: social, moderation: moderation).register(on: router)
        SearchRoutes(search: SearchReads(lists: lists), codec: cursors).register(on: router)
        FeedRoutes(feeds: FeedReads(lists: lists), codec: cursors).register(on: router)
        ChangeRoutes(changes: ChangeReads(database: database, codec: cursors, rallies: rallies, clock: clock), codec: cursors).register(on: router)
        ModerationRoutes(reads: ModerationReads(lists: lists), users: userReads, videos: videoReads, codec: cursors, moderation: moderation,
                         pictureCache: pictureCache)
            .register(on: router)
        AnnouncementRoutes(announcements: announcements, lists: lists, codec: cursors).register(on: router)
        AdminStatsRoutes(database: database, clock: clock).register(on: router)
        NotificationRoutes(notifications: NotificationReads(lists: lists), codec: cursors, installations: installations,
                           inbox: Inbox(database: database, clock: clock)).register(on: router)
        if let settings = configuration.publicWeb {
            // Pages render as an anonymous reader sees them, from the same stores as /v1's reads.
            let rallies = self.rallies
            PublicWeb(settings: settings, database: database, today: { rallies.today }).register(on: router)
        }
        if let keys = configuration.parse {
            // The same sign-up mail and reset path as /v1's, and the same limits.
            let parseMail = ParseFacade.AccountMail(
                onSignUp: { email, request in accountRoutes.signUpMail(to: email, request) },
                requestPasswordReset: { email, request in
                    // Without mail there is nothing to send: Parse's answer is `{}` regardless.
                    guard mail.service != nil else { return }
                    try recovery.queueReset(email: email, request)
                })
            ParseFacade(keys: keys, accounts: accounts, database: database, videos: videos, social: social, moderation: moderation,
                        installations: installations, publicRead: configuration.publicRead, mail: parseMail,
                        limits: .init(signups: .signups, logins: .logins, write: { [limits] userID in try limits.check(.writes, key: userID) }))
                .register(on: router)
        }
        return router.build()
    }

    /// The responder of the `--metrics-listen` listener: `/metrics` (with the token check when
    /// there is one) and nothing else, 404. No session, no rate limit: it is meant for a
    /// loopback or private address that only the scraper reaches.
    public func makeMetricsResponder() -> Responder<Accounts.Identity> {
        let router = RouterBuilder<Accounts.Identity>(logger: logger, mapError: APIErrors.map)
        router.add(middleware: MetricsMiddleware(registry: metrics))
        operations.registerMetrics(on: router)
        return router.build()
    }

    private var operations: OperationsRoutes {
        OperationsRoutes(database: database, metrics: metrics, metricsToken: configuration.metricsToken)
    }

    /// Starts what a running server does in the background: the workers of the outbox lanes it
    /// was given and the periodic clean-up (`close` stops both).
    public func startBackgroundWork() {
        let lanes = configuration.outboxLanes
        if lanes.contains(.feed) { feedWorker.start() }
        if lanes.contains(.notify) { notifyWorker.start() }
        if lanes.contains(.push) { deliveryWorker.start() }
        if lanes.contains(.mail) { mailWorker?.start() }
        let retention = configuration.changesRetentionMillis
        let interval = DispatchTimeInterval.milliseconds(Int(clamping: configuration.maintenanceIntervalMillis))
        maintenance.withLock {
            $0 = $0 ?? Maintenance(database: database, accounts: accounts, logger: logger, changesRetentionMillis: retention, interval: interval)
        }
    }

    /// Stops background work (each worker finishes the batch in hand: deliveries under way
    /// are completed and recorded) and closes the database.
    public func close() {
        maintenance.withLock { $0?.stop(); $0 = nil }
        mailWorker?.stop()
        deliveryWorker.stop()
        notifyWorker.stop()
        feedWorker.stop()
        database.close()
    }
}
