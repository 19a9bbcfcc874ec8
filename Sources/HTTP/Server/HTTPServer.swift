import CMicroHTTPD
import Synchronization
import Telemetry

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1.1 server: GNU libmicrohttpd with epoll and an internal thread pool, plus an
/// offload pool for CPU-heavy routes.
///
/// Lifecycle: `init` -> `start()` (binds and serves) -> `shutdown()`. Requests run
/// synchronously on libmicrohttpd's threads (or the offload pool); the responder must be
/// thread-safe, which a frozen `Responder` is.
public final class HTTPServer: Sendable {
    let core: ServerCore
    let daemon = Mutex<DaemonHandle?>(nil)
    let port = Atomic<Int>(0)

    public init(configuration: ServerConfiguration, responder: any HTTPResponder, logger: Logger, metrics: MetricsRegistry) {
        core = ServerCore(configuration: configuration, responder: responder, logger: logger, metrics: metrics)
    }

    /// The port actually bound (useful with port 0); 0 before `start()`.
    public var boundPort: Int { port.load(ordering: .relaxed) }
    /// Requests holding a large-body slot now (`ServerConfiguration.maxLargeBodies`).
    public var largeBodiesInUse: Int { core.largeBodies.inUse }

    /// Binds the listening socket and starts serving. Throws `HTTPServerError` naming the C
    /// function that failed (`bind` when the port is in use, `MHD_start_daemon_va`, ...).
    public func start() throws {
        precondition(daemon.withLock { $0 == nil }, "HTTPServer.start() called twice")
        let config = core.configuration
        // We bind the socket ourselves and hand it over with MHD_OPTION_LISTEN_SOCKET instead of
        // MHD_OPTION_SOCK_ADDR: the bound port of a port-0 daemon is only available through
        // MHD_get_daemon_info, a variadic function Swift cannot call, and our own bind gives an
        // error naming `bind` with its errno (EADDRINUSE).
        let listener = try ListenSocket.bind(host: config.host, port: config.port, backlog: 1024)
        // TCP_DEFER_ACCEPT (tcp(7)): the kernel completes accept(2) once the first bytes have
        // arrived, so the head screen (mhdConnectionNotify) sees them, and connections that
        // never send anything wait in the kernel instead of holding a descriptor and a slot.
        var deferSeconds = Int32(clamping: max(1, (config.headerTimeoutMillis + 999) / 1_000))
        _ = setsockopt(listener.fd, Int32(IPPROTO_TCP), TCP_DEFER_ACCEPT, &deferSeconds, socklen_t(MemoryLayout<Int32>.size))
        try core.offloadPool.start()
        do {
            try core.blockingPool.start()
            try core.mediaPool.start()
            try core.deadlines.start()
        } catch {
            core.shutdownPools()
            throw error
        }

        // Flags, checked against libmicrohttpd 0.9.75's header:
        // - EPOLL_INTERNAL_THREAD + INTERNAL_POLLING_THREAD: epoll, with MHD running the loop on
        //   its own threads (THREAD_POOL_SIZE of them, each with its own epoll set).
        // - ALLOW_SUSPEND_RESUME: offloaded requests suspend their connection; it also enables
        //   the inter-thread channel MHD_quiesce_daemon needs in thread-pool mode.
        // - ERROR_LOG: MHD's own diagnostics go to `mhdLogCallback`, i.e. our logger.
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        // Unmanaged: `core` is owned by this server, which stops the daemon before it goes away,
        // so the unretained pointer outlives every callback.
        let coreContext = Unmanaged.passUnretained(core).toOpaque()
        // unsafeBitCast: C function pointers travel through the va_list as plain pointers.
        let completedCallback: MHD_RequestCompletedCallback = mhdCompletedCallback
        let logCallback: MHD_LogCallback = mhdLogCallback
        let notifyCallback: MHD_NotifyConnectionCallback = mhdConnectionNotify
        let notify = unsafeBitCast(notifyCallback, to: OpaquePointer.self)
        let unescapeCallback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = mhdKeepEscaped
        let unescape = unsafeBitCast(unescapeCallback, to: OpaquePointer.self)
        let completed = unsafeBitCast(completedCallback, to: OpaquePointer.self)
        let logger = unsafeBitCast(logCallback, to: OpaquePointer.self)
        let options: [any CVarArg] = [
            // First, so that MHD routes every later diagnostic (including about options) to us.
            MHD_OPTION.EXTERNAL_LOGGER.rawValue, logger, OpaquePointer(coreContext),
            MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(max(1, config.threads)),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(max(0, config.connectionTimeoutSeconds)),
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(ConnectionLimit.effective(configured: config.maxConnections)),
            // Shared by all serving threads (MHD counts per address in the master daemon).
            MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(max(1, config.maxConnectionsPerAddress)),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, notify, OpaquePointer(coreContext),
            // Per-connection memory pool: headers, the read buffer and the response headers all
            // live here. It must be well above maxHeaderBytes so that oversize headers reach our
            // handler (which answers 414/431 with the JSON envelope); only headers beyond this
            // pool are refused by MHD itself, with its own HTML body (MHD also keeps ~50 bytes of
            // bookkeeping per header there, so 400 small headers need ~45 KiB). Not larger: MHD zeroes
            // the pool for every request, and at 96 KiB that memset was 8% of a request's CPU.
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, config.maxHeaderBytes * 4,
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, completed, OpaquePointer(coreContext),
            MHD_OPTION.LISTEN_SOCKET.rawValue, listener.fd,
            MHD_OPTION.UNESCAPE_CALLBACK.rawValue, unescape, OpaquePointer(coreContext),
            MHD_OPTION.END.rawValue,
        ]
        let started: OpaquePointer? = withVaList(options) { va in
            MHD_start_daemon_va(flags, 0, nil, nil, mhdAccessHandler, coreContext, va)
        }
        guard let started else {
            let err = errno
            close(listener.fd)
            core.shutdownPools()
            core.deadlines.stop()
            throw HTTPServerError(function: "MHD_start_daemon_va", errno: err, detail: "\(config.host):\(listener.port)")
        }
        daemon.withLock { $0 = DaemonHandle(pointer: started) }
        port.store(listener.port, ordering: .relaxed)
        core.logger.info("listening", ["listen": "\(formatHost(config.host)):\(listener.port)"])
    }

    /// Stops accepting (MHD_quiesce_daemon), waits up to `gracePeriodSeconds` for requests in
    /// flight (offloaded ones included), lets the offload pool finish its jobs, then stops the
    /// daemon. Safe to call more than once.
    public func shutdown(gracePeriodSeconds: Double = 10) {
        guard let handle = daemon.withLock({ d -> DaemonHandle? in
            defer { d = nil }
            return d
        }) else { return }
        let listenFD = MHD_quiesce_daemon(handle.pointer)
        // After quiescing, the listening socket is ours to close.
        if listenFD >= 0 { close(listenFD) }
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, gracePeriodSeconds) * 1000))
        while core.inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            usleep(2_000)
        }
        let remaining = core.inFlight.load(ordering: .acquiring)
        if remaining > 0 {
            core.logger.warning("shutdown grace period over", ["in_flight": String(remaining)])
        }
        // Pooled jobs resume their connection when done; they must all have done so before
        // MHD_stop_daemon frees the connections.
        core.shutdownPools()
        MHD_stop_daemon(handle.pointer)
        core.deadlines.stop()
        core.logger.info("stopped")
    }

    deinit {
        if let handle = daemon.withLock({ $0 }) {
            // Jobs resume their connections: let them finish before the daemon frees them.
            core.shutdownPools()
            MHD_stop_daemon(handle.pointer)
        }
        core.deadlines.stop()
    }
}

/// A running daemon's pointer. @unchecked Sendable: MHD daemon functions are thread-safe, and
/// the handle is only taken out of the server's mutex to stop the daemon once.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

func formatHost(_ host: String) -> String {
    host.contains(":") ? "[\(host)]" : host
}

/// Everything the C callbacks need, reached through the daemon's context pointer.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let offloadPool: OffloadPool
    let blockingPool: OffloadPool
    let mediaPool: OffloadPool
    /// Requests holding a large-body slot (`ServerConfiguration.maxLargeBodies`), by holder.
    let largeBodies: LargeBodySlots
    /// Requests whose first access-handler call happened and whose completion callback has not.
    let inFlight = Atomic<Int>(0)
    let requestsRejected: Counter
    let offloadRejected: Counter
    /// Queued requests dropped because their client had closed the connection before their turn.
    let abandoned: Counter
    /// Connections refused by the head screen (RequestHeadScreen: a NUL, obs-fold, a bare CR, ...).
    let malformedHeads: Counter
    /// Request-head deadlines of open connections.
    let deadlines: HeadDeadlines
    /// Warnings a client can cause once per connection, at most one line per second per kind.
    let floodLog: RateLimitedLog
    /// Streamed responses by how they ended (`StreamedBody`).
    let streams: StreamCounters

    init(configuration: ServerConfiguration, responder: any HTTPResponder, logger: Logger, metrics: MetricsRegistry) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        largeBodies = LargeBodySlots(capacity: configuration.maxLargeBodies, maxPerHolder: configuration.maxLargeBodiesPerHolder)
        offloadPool = OffloadPool(threads: configuration.offloadThreads, capacity: configuration.offloadQueueCapacity, niceness: 10)
        // A connection has at most one request in flight, so this queue is never full.
        blockingPool = OffloadPool(threads: configuration.blockingThreads, capacity: configuration.maxConnections, niceness: 0)
        mediaPool = OffloadPool(threads: configuration.mediaThreads, capacity: configuration.mediaQueueCapacity, niceness: 10)
        requestsRejected = metrics.counter(
            "pacenote_http_rejected_total", help: "Requests refused before routing or before their body was read (size limits, bad framing, a large body refused from its head).")
        offloadRejected = metrics.counter(
            "pacenote_http_offload_rejected_total", help: "Offloaded requests refused because the offload queue was full.")
        abandoned = metrics.counter(
            "pacenote_http_abandoned_total", help: "Queued requests not run because their client had closed the connection first.")
        malformedHeads = metrics.counter(
            "pacenote_http_malformed_heads_total", help: "Connections answered 400 and closed for a malformed request head (a NUL byte, obs-fold, a bare CR, a broken request line).")
        let headTimeouts = metrics.counter(
            "pacenote_http_header_timeouts_total", help: "Connections closed because their request head was not complete in time.")
        let bodyTimeouts = metrics.counter(
            "pacenote_http_body_timeouts_total", help: "Large request bodies answered 408 because they were not complete in time.")
        let floodLog = RateLimitedLog(logger: logger)
        self.floodLog = floodLog
        streams = StreamCounters(metrics: metrics)
        deadlines = HeadDeadlines(
            timeoutMillis: configuration.headerTimeoutMillis, bodyTimeoutMillis: configuration.bodyTimeoutMillis,
            onExpired: { neverServed, idle in
                // An idle kept-alive connection closed is ordinary housekeeping, not worth a warning.
                if idle > 0 { logger.debug("idle kept-alive connections closed", ["closed": String(idle)]) }
                guard neverServed > 0 else { return }
                headTimeouts.increment(by: neverServed)
                floodLog.warning(kind: "header timeout", "request head not complete in time; connection closed",
                                 ["closed": String(neverServed)])
            },
            onLateBodies: { answered in
                bodyTimeouts.increment(by: answered)
                floodLog.warning(kind: "body timeout", "request body not complete in time; answered 408, connection closed",
                                 ["closed": String(answered)])
            })
        let pool = offloadPool, blocking = blockingPool, media = mediaPool
        metrics.gauge("pacenote_http_offload_outstanding", help: "Offloaded requests queued or running.") {
            Double(pool.outstanding)
        }
        let open = deadlines
        metrics.gauge("pacenote_http_connections_open", help: "TCP connections being served.") {
            Double(open.openConnections)
        }
        metrics.gauge("pacenote_http_blocking_outstanding", help: "Requests queued or running on the blocking pool (writes).") {
            Double(blocking.outstanding)
        }
        metrics.gauge("pacenote_http_media_outstanding", help: "Requests queued or running on the media pool (image uploads).") {
            Double(media.outstanding)
        }
        let slots = largeBodies
        metrics.gauge("pacenote_http_large_bodies", help: "Requests whose body may be over 64 KiB (uploads) being received or handled, of maxLargeBodies.") {
            Double(slots.inUse)
        }
    }

    func shutdownPools() {
        offloadPool.shutdown()
        blockingPool.shutdown()
        mediaPool.shutdown()
    }
}

/// A bound, listening, non-blocking TCP socket.
struct ListenSocket {
    let fd: Int32
    let port: Int

    static func bind(host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> ListenSocket {
        guard (0...65_535).contains(port) else {
            throw HTTPServerError(function: "bind", errno: EINVAL, detail: "port \(port) out of range")
        }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
        } else {
            throw HTTPServerError(function: "inet_pton", errno: EINVAL, detail: "not an IP address: \(host)")
        }
        // Non-blocking: every MHD pool thread accepts on this socket from its own epoll set.
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError(function: "socket", errno: errno) }
        var one: Int32 = 1
        // SO_REUSEADDR (what MHD_OPTION_LISTENING_ADDRESS_REUSE would set): a restart can bind
        // while old connections sit in TIME_WAIT.
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let err = errno
            close(fd)
            throw HTTPServerError(function: "setsockopt", errno: err)
        }
        let bound: Int32
        if family == AF_INET {
            bound = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            bound = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bound == 0 else {
            let err = errno
            close(fd)
            throw HTTPServerError(function: "bind", errno: err, detail: "\(formatHost(host)):\(port)")
        }
        guard listen(fd, backlog) == 0 else {
            let err = errno
            close(fd)
            throw HTTPServerError(function: "listen", errno: err)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let err = errno
            close(fd)
            throw HTTPServerError(function: "getsockname", errno: err)
        }
        let boundPort: UInt16 = withUnsafePointer(to: &storage) { raw in
            if family == AF_INET {
                return raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
            return raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return ListenSocket(fd: fd, port: Int(boundPort))
    }
}
