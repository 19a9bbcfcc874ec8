import Dispatch
import Storage
import Synchronization

/// A lock that no waiter can be starved of: threads that ask while it is free take it at
/// once (the cheapest order, as with any mutex), but once the longest waiter has waited
/// `handoffAfter`, `unlock` hands the lock straight to it, so no running thread can take it
/// in between. The rule of Go's `sync.Mutex` starvation mode (1 ms there).
///
/// SQLite's one write connection is shared by every request that writes (the blocking pool's
/// threads) and by the outbox workers. Behind a plain mutex, a woken waiter that found the
/// lock taken again by a running thread went back to sleep at the end of the queue, so a few
/// requests waited many turns: most of the p99 of writes. Measured on small (BENCHMARKS.md
/// "Issue 15"): a handoff at every unlock cut the p99 of likes and comments by a third but
/// cost up to 17% of their rate, a sleep and a wake per write; a handoff after 2 ms kept the
/// p99 as low with less loss, after 8 ms the rate was level with the plain mutex or better.
final class FairLock: Sendable {
    /// One thread asleep in `lock`. Its fields are touched only under `state`'s lock.
    private final class Waiter: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        let since: ContinuousClock.Instant
        /// Set by `unlock` when it hands the lock over rather than freeing it.
        var handed = false
        init(since: ContinuousClock.Instant) { self.since = since }
    }

    private struct State {
        var held = false
        /// The longest waiting first. As many as threads that write (tens), so taking the
        /// first off the front costs next to nothing.
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())
    private let handoffAfter: Duration

    init(handoffAfter: Duration = .milliseconds(8)) {
        self.handoffAfter = handoffAfter
    }

    func lock() {
        var waiter: Waiter?
        while true {
            let taken = state.withLock { state -> Bool in
                guard state.held else {
                    state.held = true
                    return true
                }
                // A waiter that lost the race keeps its place at the front, and its age.
                let next = waiter ?? Waiter(since: .now)
                if waiter == nil { state.waiters.append(next) } else { state.waiters.insert(next, at: 0) }
                waiter = next
                return false
            }
            guard !taken, let waiter else { return }
            waiter.wake.wait()
            if state.withLock({ _ in waiter.handed }) { return }
        }
    }

    func unlock() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            let first = state.waiters.removeFirst()
            first.handed = ContinuousClock.now - first.since >= handoffAfter
            // Without a handoff the lock is free, and the woken waiter races for it.
            if !first.handed { state.held = false }
            return first
        }
        next?.wake.signal()
    }

    /// Threads asleep in `lock` (for tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
