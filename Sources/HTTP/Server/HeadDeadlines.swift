import Synchronization
import Telemetry

#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection libmicrohttpd serves, as the deadlines see it.
///
/// Created by the MHD_OPTION_NOTIFY_CONNECTION callback when MHD accepts the socket, dropped
/// when MHD reports it closed (before MHD closes the socket).
final class ConnectionRecord: Sendable {
    /// Marks a connection whose deadline passed: its socket was shut down.
    static let expired: Int64 = -1
    /// Marks a connection whose request head arrived: a request is being handled.
    static let inRequest: Int64 = 0

    /// What a deadline that passed was for.
    enum Lateness: Equatable {
        /// The request head (request line and headers).
        case head
        /// A large body (`ServerConfiguration.bodyTimeoutMillis`).
        case body
    }

    let socket: Int32
    /// The peer's address (`ConnectionInfo.clientAddress`), read once when the connection opens:
    /// it cannot change, and a `getpeername` per request was 2% of a small read's CPU.
    let remoteAddress: String
    /// Positive: waiting for a request head since this `monotonicMillis()`; `inRequest`;
    /// `expired` (final); or, below -1, reading a large body whose head arrived at
    /// `-state - 1` (`bodyDue(since:)`). One atomic for all, so that the sweep taking a late
    /// connection and the serving thread moving it on cannot both win.
    let state: Atomic<Int64>
    /// Whether a head ever arrived: a kept-alive connection left idle past the deadline is
    /// ordinary, one that never sent a whole head is what a slow-client attack looks like.
    let served = Atomic<Bool>(false)

    /// The MHD connection, for what only its serving thread may ask of it
    /// (`ServerCore.answerRefusalBeforeMHD`); nil in tests.
    let connection: ConnectionHandle?
    /// The serving thread that accepted the connection: MHD's thread pool keeps a connection on
    /// that thread for its whole life.
    let owner: pthread_t

    init(socket: Int32, waitingSince: Int64, remoteAddress: String = "", connection: ConnectionHandle? = nil, owner: pthread_t = pthread_self()) {
        self.socket = socket
        self.remoteAddress = remoteAddress
        self.connection = connection
        self.owner = owner
        state = Atomic(max(1, waitingSince))
    }

    /// The state of a connection reading a large body whose head arrived at `since`.
    static func bodyDue(since: Int64) -> Int64 { -max(1, since) - 1 }

    /// Called when MHD hands us a complete head; false when the deadline already took the
    /// connection (the request must then not be served: the socket is being closed).
    func headArrived() -> Bool {
        var current = state.load(ordering: .relaxed)
        while current != Self.expired {
            let (done, seen) = state.weakCompareExchange(
                expected: current, desired: Self.inRequest, successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if done {
                served.store(true, ordering: .relaxed)
                return true
            }
            current = seen
        }
        return false
    }

    /// Called when a request ends: on a kept-alive connection the next head gets a deadline of its own.
    func awaitHead(since now: Int64) {
        var current = state.load(ordering: .relaxed)
        while current != Self.expired {
            let (done, seen) = state.weakCompareExchange(
                expected: current, desired: max(1, now), successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if done { return }
            current = seen
        }
    }

    /// Called once a large body was admitted (the head arrived at `since`): the whole body is due
    /// `bodyTimeoutMillis` after it.
    func awaitBody(since: Int64) {
        var current = state.load(ordering: .relaxed)
        while current == Self.inRequest {
            let (done, seen) = state.weakCompareExchange(
                expected: current, desired: Self.bodyDue(since: since), successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if done { return }
            current = seen
        }
    }

    /// Called when a large body's reading ends (complete, or refused while it arrived), before
    /// anything is queued on the connection; false when its deadline already took the
    /// connection: the 408 was written on the socket, which nothing else may write to now.
    func bodyArrived() -> Bool {
        var current = state.load(ordering: .relaxed)
        while current < Self.expired {
            let (done, seen) = state.weakCompareExchange(
                expected: current, desired: Self.inRequest, successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if done { return true }
            current = seen
        }
        return current != Self.expired
    }

    /// Takes the connection if it has been waiting for a head for `headTimeout` ms or more at
    /// `now`, or for the rest of a large body `bodyTimeout` ms after its head; answers which
    /// (exactly once per connection), nil when it is not late.
    func expireIfLate(now: Int64, headTimeout: Int64, bodyTimeout: Int64) -> Lateness? {
        var current = state.load(ordering: .relaxed)
        while true {
            let lateness: Lateness
            if current > 0 && now - current >= headTimeout {
                lateness = .head
            } else if current < Self.expired && now - (-current - 1) >= bodyTimeout {
                lateness = .body
            } else {
                return nil
            }
            let (done, seen) = state.weakCompareExchange(
                expected: current, desired: Self.expired, successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if done { return lateness }
            current = seen
        }
    }

    /// Marks the connection refused (the head screen answered it) so its head is never served.
    func refuse() {
        state.store(Self.expired, ordering: .releasing)
    }

    /// Takes a connection still waiting for its head, to answer it ourselves; false when it is
    /// not waiting (in a request, or already taken).
    func takeWaiting() -> Bool {
        var current = state.load(ordering: .relaxed)
        while current > 0 {
            let (done, seen) = state.weakCompareExchange(
                expected: current, desired: Self.expired, successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if done { return true }
            current = seen
        }
        return false
    }
}

/// The deadline for a whole request head (request line and headers), which libmicrohttpd
/// 0.9.75 lacks, and the one for a large body: its MHD_OPTION_CONNECTION_TIMEOUT is an *idle*
/// timeout, reset by every byte, so a client trickling a byte a second holds a connection (and,
/// with a large body, one of the upload slots) forever.
///
/// A head is due `timeoutMillis` after the connection was accepted, or after the previous
/// response on a kept-alive connection; a large body (`RoutePolicy.maxBodyBytes` over the
/// server's) `bodyTimeoutMillis` after its head arrived. A thread sweeps the open connections
/// a few times per deadline. A late head's socket is shut down (shutdown(2), both directions);
/// MHD then reads end-of-file and closes the connection itself, through its usual path. A late
/// body is answered first: `lateBodyAnswer` (a whole 408 response) is written on the socket,
/// then it is shut down. Writing beside MHD is safe there because MHD writes nothing on a
/// connection that is still reading its body (no response is queued before the body ends, see
/// `ConnectionRecord.bodyArrived`), and the state's one atomic decides who goes on.
///
/// Why shutting down from another thread is safe: MHD reports a connection closed (which
/// removes its record, under `connections`' lock) before it closes the socket, and the sweep
/// shuts sockets down under that same lock, so it never touches a descriptor number that
/// MHD has closed and the kernel may have reused.
final class HeadDeadlines: Sendable {
    let timeoutMillis: Int64
    let bodyTimeoutMillis: Int64
    let connections = Mutex<[ObjectIdentifier: ConnectionRecord]>([:])
    /// Called (on the sweeping thread) after a sweep that closed connections, with how many
    /// had never sent a whole head and how many were kept alive after a response and left idle.
    let onExpired: @Sendable (_ neverServed: Int, _ idleKeptAlive: Int) -> Void
    /// Called (on the sweeping thread) after a sweep that answered late bodies, with how many.
    let onLateBodies: @Sendable (_ answered: Int) -> Void
    /// The whole answer written on a connection whose body is late.
    let lateBodyAnswer: @Sendable () -> [UInt8]
    let stopping = Atomic<Bool>(false)
    let thread = Mutex<pthread_t?>(nil)

    init(timeoutMillis: Int64, bodyTimeoutMillis: Int64 = 30_000,
         onExpired: @escaping @Sendable (_ neverServed: Int, _ idleKeptAlive: Int) -> Void,
         onLateBodies: @escaping @Sendable (_ answered: Int) -> Void = { _ in },
         lateBodyAnswer: @escaping @Sendable () -> [UInt8] = { RawAnswer.make(.requestTimeout()) }) {
        self.timeoutMillis = max(1, timeoutMillis)
        self.bodyTimeoutMillis = max(1, bodyTimeoutMillis)
        self.onExpired = onExpired
        self.onLateBodies = onLateBodies
        self.lateBodyAnswer = lateBodyAnswer
    }

    var openConnections: Int { connections.withLock { $0.count } }

    func register(_ record: ConnectionRecord) {
        connections.withLock { $0[ObjectIdentifier(record)] = record }
    }

    func unregister(_ record: ConnectionRecord) {
        connections.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(record)) }
    }

    /// Shuts down every connection late at `now` (answering late bodies first); answers how many.
    @discardableResult
    func sweep(now: Int64) -> Int {
        let (neverServed, idle, bodies) = connections.withLock { all -> (Int, Int, Int) in
            var neverServed = 0, idle = 0, bodies = 0
            for record in all.values {
                switch record.expireIfLate(now: now, headTimeout: timeoutMillis, bodyTimeout: bodyTimeoutMillis) {
                case nil:
                    continue
                case .head:
                    if record.served.load(ordering: .relaxed) { idle += 1 } else { neverServed += 1 }
                case .body:
                    RawAnswer.send(lateBodyAnswer(), on: record.socket)
                    bodies += 1
                }
                _ = shutdown(record.socket, Int32(SHUT_RDWR))
            }
            return (neverServed, idle, bodies)
        }
        if neverServed + idle > 0 { onExpired(neverServed, idle) }
        if bodies > 0 { onLateBodies(bodies) }
        return neverServed + idle + bodies
    }

    /// Starts the sweeping thread; throws naming `pthread_create` on failure.
    func start() throws(HTTPServerError) {
        var handle = pthread_t()
        // Unmanaged: the thread takes this retain and releases it when its loop ends.
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<HeadDeadlines>.fromOpaque(raw).takeRetainedValue().sweepLoop()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<HeadDeadlines>.fromOpaque(context).release()
            throw HTTPServerError(function: "pthread_create", errno: rc)
        }
        thread.withLock { $0 = handle }
    }

    /// Stops the sweeping thread and waits for it. Safe to call more than once.
    func stop() {
        stopping.store(true, ordering: .releasing)
        if let handle = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) {
            pthread_join(handle, nil)
        }
    }

    private func sweepLoop() {
        // Four sweeps per (shorter) deadline, at most every 250 ms: a late head or body is
        // taken within a quarter of its deadline after it, and an idle server wakes four times
        // a second.
        let tick = min(250, max(10, min(timeoutMillis, bodyTimeoutMillis) / 4))
        while !stopping.load(ordering: .acquiring) {
            usleep(UInt32(tick * 1_000))
            sweep(now: monotonicMillis())
        }
    }
}
