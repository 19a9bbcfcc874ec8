import Auth
import Community
import Delivery
import Foundation
import HTTP
import CloudHooks
import SocialAPI
import Telemetry

/// `pacenote serve`: migrate, then serve HTTP until SIGTERM or SIGINT.
enum ServeCommand {
    static let spec = CommandSpec(
        synopsis: "serve [--listen 127.0.0.1:8080] [--data-dir ./data] [options]",
        summary: "Applies pending migrations, then serves the HTTP API until SIGTERM or SIGINT (which finish the requests in flight).",
        flags: [.init("listen", "HOST:PORT", "the address to serve on (127.0.0.1:8080; [::1]:8080 for IPv6)")] + CommonOptions.database + [
            .init("public-read", nil, "let anonymous clients GET rallies, videos, users and their lists"),
            .init("public-url", "URL", "the server's public address, such as https://pacenote.example.com: the base of pictures' URLs and mails' links (paths without it)"),
            .init("picture-cache-mb", "N", "memory for profile pictures served recently, in MiB; 0 keeps none (32)"),
            .init("picture-memory-mb", "N", "memory for decoding uploaded pictures at once, in MiB; uploads wait for it (160)"),
            .init("bcrypt-cost", "N", "bcrypt cost of new password hashes, 4 to 31 (10)"),
            .init("lockout-threshold", "N", "failed logins for one login name that lock it (10)"),
            .init("lockout-window", "DURATION", "the window those failures count in (15m)"),
            .init("lockout-duration", "DURATION", "how long a locked name stays locked (15m)"),
            .init("session-lifetime", "DURATION", "a session's life, extended on use after half of it (365d)"),
            .init("changes-retention", "DURATION", "how long GET /v1/changes keeps a deleted rally's or video's tombstone; an older since is 410 sync_expired (30d)"),
            .init("maintenance-interval", "DURATION", "how often expired sessions, done jobs and old tombstones are cleared (10m)"),
            .init("auto-hide-flags", "N", "distinct flags that hide a video automatically (5)"),
            .init("cursor-secret", "HEX64", "the key that authenticates cursors; the same for every server on one database (generated into <data-dir>/cursor.key)"),
            .init("fanout-sync-limit", "N", "followers whose home gets a new video inside the write; the rest by the outbox worker (1000)"),
            .init("fanout-hot-followers", "N", "followers from which an account is hot: its videos are merged into home feeds when read, not copied (1000)"),
            .init("threads", "N", "serving threads (one per core)"),
            .init("hash-threads", "N", "threads for the bcrypt routes: sign-up, login, password change (2)"),
            .init("max-connections-per-ip", "N", "open connections one client address may hold (64)"),
            .init("header-timeout", "DURATION", "a request head must be complete within it, from accept or the previous response (10s)"),
            .init("body-timeout", "DURATION", "the body of a picture upload (the one route taking bodies over 64 KiB) must be complete within it, from its request head; else 408 and the connection closed (30s)"),
            .init("outbox-workers", "LANES", "background work this server runs: all, none, or some of feed,notify,push,mail; servers on one PostgreSQL share it (all)"),
            .init("metrics-token", "TOKEN", "/metrics then needs Authorization: Bearer TOKEN, else 401 (open)"),
            .init("metrics-listen", "HOST:PORT", "serve /metrics only on this second address, say loopback or a private network; the main one answers 404 for it"),
            CommonOptions.logLevel,
        ] + PushOptions.flags + MailOptions.flags + LimitOptions.flags + SignInOptions.flags + ParseOptions.flags + PublicWebOptions.flags
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, spec: spec)
        var configuration = try CommonOptions.configuration(options)
        configuration.publicRead = try options.bool("public-read")
        configuration.publicURL = try MailOptions.publicURL(options)
        configuration.pictureCacheBytes = try options.int("picture-cache-mb", default: 32, range: 0...65_536) * 1024 * 1024
        configuration.pictureMemoryBytes = try options.int("picture-memory-mb", default: 160, range: 16...65_536) * 1024 * 1024
        configuration.accounts.bcryptCost = try options.int("bcrypt-cost", default: 10, range: 4...31)
        configuration.accounts.lockout.threshold = try options.int("lockout-threshold", default: 10, range: 1...1_000)
        configuration.accounts.lockout.windowMillis = try options.duration("lockout-window", defaultMillis: 15 * 60_000)
        configuration.accounts.lockout.lockMillis = try options.duration("lockout-duration", defaultMillis: 15 * 60_000)
        configuration.accounts.sessionLifetimeMillis = try options.duration("session-lifetime", defaultMillis: 365 * 86_400_000)
        configuration.changesRetentionMillis = try options.duration("changes-retention", defaultMillis: 30 * 86_400_000)
        configuration.maintenanceIntervalMillis = try options.duration("maintenance-interval", defaultMillis: 600_000)
        configuration.autoHideFlags = try options.int("auto-hide-flags", default: 5, range: 1...1_000)
        configuration.cursorSecret = options.string("cursor-secret")
        configuration.fanoutSyncLimit = try options.int("fanout-sync-limit", default: 1_000, range: 0...1_000_000)
        configuration.fanoutHotFollowers = try options.int("fanout-hot-followers", default: TimelineRebuild.defaultHotFollowers, range: 1...100_000_000)
        configuration.push = try PushOptions.services(options)
        configuration.mail = try MailOptions.service(options)
        configuration.mailRetryBaseMillis = try options.duration("mail-retry-base", defaultMillis: 30_000)
        configuration.limits = try LimitOptions.limits(options)
        configuration.outboxLanes = try outboxLanes(options.string("outbox-workers", default: "all"))
        configuration.metricsToken = options.string("metrics-token")
        if configuration.metricsToken?.isEmpty == true {
            throw Options.UsageError(description: "--metrics-token must not be empty")
        }
        let metricsAddress = try options.string("metrics-listen").map { try listenAddress($0, flag: "metrics-listen") }
        configuration.metricsOnOwnListener = metricsAddress != nil
        configuration.parse = try ParseOptions.keys(options)
        configuration.publicWeb = try PublicWebOptions.settings(options, publicURL: configuration.publicURL)

        var server = ServerConfiguration()
        (server.host, server.port) = try listenAddress(options.string("listen", default: "127.0.0.1:8080"), flag: "listen")
        // One serving thread per core: MHD threads each run an event loop, and more of them
        // than cores only adds context switches (measured in BENCHMARKS.md).
        server.threads = try options.int("threads", default: CPUs.usable, range: 1...256)
        server.offloadThreads = try options.int("hash-threads", default: 2, range: 1...64)
        server.maxConnectionsPerAddress = try options.int("max-connections-per-ip", default: 64, range: 1...100_000)
        server.headerTimeoutMillis = try options.duration("header-timeout", defaultMillis: 10_000)
        server.bodyTimeoutMillis = try options.duration("body-timeout", defaultMillis: 30_000)
        OpenFileLimit.raiseToHardLimit()

        let logger = try CommonOptions.logger(options)
        let metrics = MetricsRegistry()
        let signIn = try SignInOptions.settings(options)
        configuration.identityVerifiers = try SignInOptions.verifiers(signIn, logger: logger, metrics: metrics)
        let providers = signIn.configuredProviders.map(\.rawValue)
        logger.info("sign-in providers", ["on": providers.isEmpty ? "none (their sign-in routes answer 503)" : providers.joined(separator: ",")])
        let push = PushOptions.summary(configuration.push)
        logger.info("push services", ["ios": push.ios, "android": push.android, "webhook": push.webhook, "moderationWebhook": push.moderation])
        logger.info("mail", ["smtp": configuration.mail == nil ? "off (the mail endpoints answer 503; `pacenote user reset-link` makes links)" : "on"])
        logger.info("parse facade", ["rest": configuration.parse == nil ? "off" : "on under /parse/ and /1/"])
        logger.info("public web", ["pages": configuration.publicWeb.map { "on at \($0.publicURL.text)" } ?? "off"])
        let lanes = OutboxLane.all.filter(configuration.outboxLanes.contains).map(\.rawValue)
        logger.info("outbox workers", ["lanes": lanes.isEmpty ? "none (another server must run them)" : lanes.joined(separator: ",")])
        // Block the stop signals before any thread starts, so every thread inherits the mask
        // and only `waitForStopSignal` below receives them.
        StopSignals.block()
        let application = try Application(configuration: configuration, logger: logger, metrics: metrics, openDatabase: try CommonOptions.openDatabase(options))
        defer { application.close() }
        let http = HTTPServer(configuration: server, responder: application.makeResponder(), logger: logger, metrics: application.metrics)
        // HTTPServer logs `listening` with the bound address once it accepts connections; the
        // main listener's line comes first (scripts and tests wait for it).
        try http.start()
        let metricsServer = try metricsAddress.map { try startMetricsListener($0, like: server, application: application, logger: logger) }
        application.startBackgroundWork()

        let signal = StopSignals.wait()
        logger.info("stopping", ["signal": signal])
        metricsServer?.shutdown(gracePeriodSeconds: 1)
        http.shutdown(gracePeriodSeconds: 10)
        logger.info("stopped")
        return 0
    }

    /// `--outbox-workers`: `all`, `none`, or a comma-separated list of lanes. Several servers on
    /// one PostgreSQL may all run every lane (they share the outbox without doing a job twice);
    /// the flag lets an operator keep background work off the servers that answer requests.
    static func outboxLanes(_ text: String) throws -> Set<OutboxLane> {
        switch text.lowercased() {
        case "all": return Set(OutboxLane.all)
        case "none": return []
        default:
            let names = text.lowercased().split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let lanes = names.compactMap { name in OutboxLane.all.first { $0.rawValue == name } }
            guard !names.isEmpty, lanes.count == names.count else {
                throw Options.UsageError(description: "--outbox-workers is all, none, or lanes among \(OutboxLane.all.map(\.rawValue).joined(separator: ",")) separated by commas")
            }
            return Set(lanes)
        }
    }

    /// `--metrics-listen`: a second, small HTTP server with only `/metrics`. It logs `listening`
    /// with `"listener":"metrics"`. Its own HTTP counters and gauges go to a registry of their
    /// own, which nobody reads: registering them in the application's would replace the main
    /// listener's gauges (a gauge is one reader per name) with this one's.
    static func startMetricsListener(
        _ address: (String, Int), like main: ServerConfiguration, application: Application, logger: Logger
    ) throws -> HTTPServer {
        var configuration = ServerConfiguration()
        (configuration.host, configuration.port) = address
        configuration.threads = 1
        configuration.offloadThreads = 1
        configuration.blockingThreads = 1
        configuration.maxConnections = 64
        configuration.maxConnectionsPerAddress = 16
        configuration.headerTimeoutMillis = main.headerTimeoutMillis
        let server = HTTPServer(configuration: configuration, responder: application.makeMetricsResponder(),
                                logger: logger.with("listener", "metrics"), metrics: MetricsRegistry())
        try server.start()
        return server
    }

    /// Splits `host:port` (IPv4 or a name; `[::1]:8080` for IPv6), the value of `--<flag>`.
    static func listenAddress(_ text: String, flag: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw Options.UsageError(description: "--\(flag) is host:port, such as 127.0.0.1:8080")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}
