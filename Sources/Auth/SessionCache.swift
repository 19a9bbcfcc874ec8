import Synchronization

/// Sessions resolved in the last moment, so that most requests skip the session lookup
/// (it was a third of the database work of a simple read).
///
/// Exact for everything done through this process: a logout removes its token, and every
/// change that can end sessions or change a role (logout everywhere, password change,
/// account deletion, role change) empties the cache. Changes written by another process
/// (the `pacenote user role` command) apply within `ttlMillis`.
final class SessionCache: Sendable {
    private struct Entry {
        let identity: Accounts.Identity
        let expiresAt: Int64
        let cachedAt: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let ttlMillis: Int64
    private let capacity: Int

    init(ttlMillis: Int64, capacity: Int = 100_000) {
        self.ttlMillis = ttlMillis
        self.capacity = capacity
    }

    func identity(forKey key: String, now: Int64) -> Accounts.Identity? {
        guard ttlMillis > 0 else { return nil }
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard now - entry.cachedAt < ttlMillis, entry.expiresAt > now else {
                entries[key] = nil
                return nil
            }
            return entry.identity
        }
    }

    func store(_ identity: Accounts.Identity, expiresAt: Int64, now: Int64) {
        guard ttlMillis > 0 else { return }
        entries.withLock { entries in
            // Bounded memory: rather than track recency, start over when full.
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[identity.sessionKey] = Entry(identity: identity, expiresAt: expiresAt, cachedAt: now)
        }
    }

    func remove(key: String) {
        entries.withLock { $0[key] = nil }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
