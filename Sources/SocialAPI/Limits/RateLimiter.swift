import Synchronization

/// One limit's counters, in memory of a fixed size however many keys (client addresses,
/// users, mail addresses) come.
///
/// **GCRA** (the generic cell rate algorithm, a leaky bucket kept as one number per key): a
/// key has a "theoretical arrival time" `tat`; each allowed request moves it `interval`
/// (period / count) later, starting from now if it lies in the past. A request is allowed
/// when `tat - burst <= now`, where `burst = period - interval`: so `count` requests pass at
/// once, then one per `interval`. When refused, the client may retry at `tat - burst`: that is
/// `Retry-After`. A key whose `tat` is in the past is exactly as if it had never been seen,
/// which is what makes eviction safe below.
///
/// **Bounded memory.** The table is a fixed array of `tableSize` slots in sets of 4 (set
/// associative, like a CPU cache), indexed by a hash of the key seeded at random per process
/// (Swift's `Hasher`), so an attacker cannot aim many keys at one set. A new key takes a free
/// or expired slot of its set (`tat <= now`, nothing to forget), else the slot with the
/// smallest `tat`: the key closest to being forgotten anyway. Under a flood of more live keys
/// than slots the limiter forgets the least-limited keys first; a forgotten key starts
/// afresh, which is generous, never a wrong refusal. Memory: 24 bytes a slot, 1.5 MiB at the
/// default 65,536. Each slot keeps the key's 64-bit hash, not the key: two keys whose hashes
/// collide (1 in 2^64) would share a budget.
public final class RateLimiter: Sendable {
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Refused; the client may retry after this many milliseconds.
        case refused(retryAfterMillis: Int64)
    }

    private struct Slot {
        var hash: UInt64 = 0
        var tat: Int64 = .min
    }

    public let limit: RateLimit
    private let interval: Int64
    private let burst: Int64
    private let setMask: Int
    private static let ways = 4
    private let slots: Mutex<[Slot]>

    /// - Parameter tableSize: slots, rounded up to a power of two, at least 4.
    public init(limit: RateLimit, tableSize: Int = 1 << 16) {
        self.limit = limit
        interval = max(1, limit.periodMillis / Int64(limit.count))
        burst = limit.periodMillis - interval
        var size = Self.ways
        while size < tableSize { size <<= 1 }
        setMask = size / Self.ways - 1
        slots = Mutex([Slot](repeating: Slot(), count: size))
    }

    /// Counts one request of `key` at `now` (milliseconds) if the limit allows it.
    public func check(_ key: String, now: Int64) -> Decision {
        var hasher = Hasher()
        hasher.combine(key)
        let hash = UInt64(bitPattern: Int64(hasher.finalize()))
        let base = (Int(truncatingIfNeeded: hash) & setMask) * Self.ways
        return slots.withLock { slots in
            var index = base
            var found = false
            for way in base..<(base + Self.ways) where slots[way].hash == hash && slots[way].tat > now {
                index = way
                found = true
                break
            }
            if !found {
                // Replace the slot with the oldest tat: free and expired slots have tat <= now.
                for way in base..<(base + Self.ways) where slots[way].tat < slots[index].tat { index = way }
                slots[index] = Slot(hash: hash, tat: now)
            }
            let tat = max(slots[index].tat, now)
            let allowedAt = tat - burst
            guard allowedAt <= now else { return .refused(retryAfterMillis: allowedAt - now) }
            slots[index].tat = tat + interval
            return .allowed
        }
    }
}
