import Synchronization

/// Sessions resolved in the last moment, so that most requests skip the session lookup
/// (it was a third of the database work of a simple read).
///
/// Exact for everything done through this process: a logout removes its token, and every
/// change that can end sessions or change a role (logout everywhere, password change,
/// account deletion, role change, ban) empties the cache, including lookups still on their
/// way to it. Changes written by another process (another server on the same PostgreSQL, the
/// `pacenote user role` command) apply within `ttlMillis`, half a second by default.
final class SessionCache: Sendable {
    private struct Entry {
        let identity: Accounts.Identity
        let expiresAt: Int64
        let cachedAt: Int64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Moves on every removal, so that a lookup that read the database before a logout
        /// cannot cache what the logout ended when it finishes after it (`store(since:)`).
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let ttlMillis: Int64
    private let capacity: Int

    init(ttlMillis: Int64, capacity: Int = 100_000) {
        self.ttlMillis = ttlMillis
        self.capacity = capacity
    }

    func identity(forKey key: String, now: Int64) -> Accounts.Identity? {
        guard ttlMillis > 0 else { return nil }
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            guard now - entry.cachedAt < ttlMillis, entry.expiresAt > now else {
                state.entries[key] = nil
                return nil
            }
            return entry.identity
        }
    }

    /// Where removals stand; taken before the database is read for a lookup.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Caches a lookup read at `now`, unless a removal happened since `generation` was taken
    /// (the session may be the one removed). `now` must be taken before the read: the entry
    /// lives `ttlMillis` from then, so another server's change is seen within that long.
    func store(_ identity: Accounts.Identity, expiresAt: Int64, now: Int64, since generation: UInt64) {
        guard ttlMillis > 0 else { return }
        state.withLock { state in
            guard state.generation == generation else { return }
            // Bounded memory: rather than track recency, start over when full.
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[identity.sessionKey] = Entry(identity: identity, expiresAt: expiresAt, cachedAt: now)
        }
    }

    func remove(key: String) {
        state.withLock { state in
            state.entries[key] = nil
            state.generation &+= 1
        }
    }

    func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.generation &+= 1
        }
    }
}
