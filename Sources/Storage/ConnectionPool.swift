import Foundation

/// A fixed set of connections lent to one thread at a time; a borrower past the last
/// free connection waits until one comes back.
package final class ConnectionPool<Connection: AnyObject>: @unchecked Sendable {
    // @unchecked: `idle` is only touched under `lock`; `available` counts idle entries, so a
    // thread that passes `wait()` is guaranteed one, which it alone then uses.
    @usableFromInline var idle: [Connection]
    package let size: Int
    @usableFromInline let lock = NSLock()
    @usableFromInline let available: DispatchSemaphore

    package init(_ connections: [Connection]) {
        idle = connections
        size = connections.count
        available = DispatchSemaphore(value: connections.count)
    }

    // @inlinable (with what they touch @usableFromInline): the drivers are other modules, and
    // would otherwise call these generic methods unspecialised, once per transaction.
    @inlinable
    package func withConnection<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        available.wait()
        return try lend(body)
    }

    /// Like `withConnection`, but a borrower that finds none free within `timeout` gets
    /// `StorageError.busy` instead of waiting on (a server pool, where every connection may
    /// be held by slow statements; the caller answers 503 rather than queueing forever).
    @inlinable
    package func withConnection<T>(waitingAtMost timeout: DispatchTimeInterval, _ body: (Connection) throws -> T) throws -> T {
        guard available.wait(timeout: .now() + timeout) == .success else { throw StorageError.busy }
        return try lend(body)
    }

    /// Lends a connection to `body`; the caller has taken one from `available`.
    @inlinable
    func lend<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        lock.lock()
        let connection = idle.removeLast()
        lock.unlock()
        defer {
            lock.lock()
            idle.append(connection)
            lock.unlock()
            available.signal()
        }
        return try body(connection)
    }

    /// Connections not lent out right now.
    package var idleCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return idle.count
    }

    @inlinable
    package func closeAll(_ close: (Connection) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        idle.forEach(close)
    }
}
