import Synchronization
import Telemetry

#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection libmicrohttpd serves, as the request-head deadline sees it.
///
/// Created by the MHD_OPTION_NOTIFY_CONNECTION callback when MHD accepts the socket, dropped
/// when MHD reports it closed (before MHD closes the socket).
final class ConnectionRecord: Sendable {
    /// Marks a connection whose deadline passed: its socket was shut down.
    static let expired: Int64 = -1
    /// Marks a connection whose request head arrived: a request is being handled.
    static let inRequest: Int64 = 0

    let socket: Int32
    /// The peer's address (`ConnectionInfo.clientAddress`), read once when the connection opens:
    /// it cannot change, and a `getpeername` per request was 2% of a small read's CPU.
    let remoteAddress: String
    /// Positive: waiting for a request head since this `monotonicMillis()`; or `inRequest`,
    /// or `expired` (final).
    let state: Atomic<Int64>
    /// Whether a head ever arrived: a kept-alive connection left idle past the deadline is
    /// ordinary, one that never sent a whole head is what a slow-client attack looks like.
    let served = Atomic<Bool>(false)

    init(socket: Int32, waitingSince: Int64, remoteAddress: String = "") {
        self.socket = socket
        self.remoteAddress = remoteAddress
        state = Atomic(max(1, waitingSince))
    }

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

    /// Takes the connection if it has been waiting for a head for `timeout` ms or more at `now`;
    /// true when it did (exactly once per connection).
    func expireIfLate(now: Int64, timeout: Int64) -> Bool {
        var current = state.load(ordering: .relaxed)
        while current > 0 && now - current >= timeout {
            let (done, seen) = state.weakCompareExchange(
                expected: current, desired: Self.expired, successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if done { return true }
            current = seen
        }
        return false
    }

    /// Marks the connection refused (the head screen answered it) so its head is never served.
    func refuse() {
        state.store(Self.expired, ordering: .releasing)
    }
}

/// The deadline for a whole request head (request line and headers), which libmicrohttpd
/// 0.9.75 lacks: its MHD_OPTION_CONNECTION_TIMEOUT is an *idle* timeout, reset by every byte,
/// so a client trickling a header byte a second holds a connection forever.
///
/// A head is due `timeoutMillis` after the connection was accepted, or after the previous
/// response on a kept-alive connection. A thread sweeps the open connections a few times per
/// deadline and shuts down (shutdown(2), both directions) the socket of any that is late; MHD
/// then reads end-of-file and closes the connection itself, through its usual path.
///
/// Why shutting down from another thread is safe: MHD reports a connection closed (which
/// removes its record, under `connections`' lock) before it closes the socket, and the sweep
/// shuts sockets down under that same lock, so it never touches a descriptor number that
/// MHD has closed and the kernel may have reused.
final class HeadDeadlines: Sendable {
    let timeoutMillis: Int64
    let connections = Mutex<[ObjectIdentifier: ConnectionRecord]>([:])
    /// Called (on the sweeping thread) after a sweep that closed connections, with how many
    /// had never sent a whole head and how many were kept alive after a response and left idle.
    let onExpired: @Sendable (_ neverServed: Int, _ idleKeptAlive: Int) -> Void
    let stopping = Atomic<Bool>(false)
    let thread = Mutex<pthread_t?>(nil)

    init(timeoutMillis: Int64, onExpired: @escaping @Sendable (_ neverServed: Int, _ idleKeptAlive: Int) -> Void) {
        self.timeoutMillis = max(1, timeoutMillis)
        self.onExpired = onExpired
    }

    var openConnections: Int { connections.withLock { $0.count } }

    func register(_ record: ConnectionRecord) {
        connections.withLock { $0[ObjectIdentifier(record)] = record }
    }

    func unregister(_ record: ConnectionRecord) {
        connections.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(record)) }
    }

    /// Shuts down every connection late at `now`; answers how many.
    @discardableResult
    func sweep(now: Int64) -> Int {
        let (neverServed, idle) = connections.withLock { all -> (Int, Int) in
            var neverServed = 0, idle = 0
            for record in all.values where record.expireIfLate(now: now, timeout: timeoutMillis) {
                _ = shutdown(record.socket, Int32(SHUT_RDWR))
                if record.served.load(ordering: .relaxed) { idle += 1 } else { neverServed += 1 }
            }
            return (neverServed, idle)
        }
        if neverServed + idle > 0 { onExpired(neverServed, idle) }
        return neverServed + idle
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
        // Four sweeps per deadline (at most every 250 ms): a late head is closed within a
        // quarter of the deadline after it, and an idle server wakes four times a second.
        let tick = min(250, max(10, timeoutMillis / 4))
        while !stopping.load(ordering: .acquiring) {
            usleep(UInt32(tick * 1_000))
            sweep(now: monotonicMillis())
        }
    }
}
