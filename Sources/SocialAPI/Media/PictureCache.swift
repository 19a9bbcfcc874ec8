import Synchronization
import Telemetry

/// Renditions this server served recently, by name, within a byte budget: a picture in a feed
/// is fetched by every reader, and its bytes never change under its name.
///
/// What may change is whether it is served: its owner replaces or removes it, a moderator
/// removes it, the account is banned or deleted. This server evicts an owner's entries at once
/// when it does any of these (`evict(userID:)`); an entry older than `revalidateMillis` is
/// checked against the database again before it is served (a lookup without the bytes), so a
/// change made through another server on the same database shows here within that time.
final class PictureCache: Sendable {
    struct Entry: Sendable {
        let bytes: [UInt8]
        let userID: String
        fileprivate(set) var checkedAt: Int64
        fileprivate var lastUse: UInt64 = 0
    }

    enum Lookup {
        /// Served as it is.
        case fresh([UInt8])
        /// Held, but to be checked again first.
        case stale([UInt8])
        case miss
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    let budgetBytes: Int
    let revalidateMillis: Int64
    private let state = Mutex(State())

    init(budgetBytes: Int, revalidateMillis: Int64 = 10_000, metrics: MetricsRegistry) {
        self.budgetBytes = budgetBytes
        self.revalidateMillis = revalidateMillis
        metrics.gauge("pacenote_picture_cache_bytes", help: "Bytes of profile-picture renditions held in memory.") { [self] in
            Double(heldBytes)
        }
    }

    /// Bytes held now.
    var heldBytes: Int { state.withLock { $0.bytes } }

    func lookup(_ name: String, now: Int64) -> Lookup {
        state.withLock { state in
            guard var entry = state.entries[name] else { return .miss }
            state.tick += 1
            entry.lastUse = state.tick
            state.entries[name] = entry
            return now - entry.checkedAt < revalidateMillis ? .fresh(entry.bytes) : .stale(entry.bytes)
        }
    }

    /// Keeps a rendition just read or checked; past the budget, the least recently used go.
    func insert(_ name: String, bytes: [UInt8], userID: String, now: Int64) {
        guard bytes.count <= budgetBytes / 4 else { return }
        state.withLock { state in
            state.tick += 1
            if let old = state.entries.updateValue(Entry(bytes: bytes, userID: userID, checkedAt: now, lastUse: state.tick), forKey: name) {
                state.bytes -= old.bytes.count
            }
            state.bytes += bytes.count
            guard state.bytes > budgetBytes else { return }
            // Down to 90% in one pass, so a full cache sorts once per tenth of its size
            // inserted, not once per insert.
            var goal = state.bytes - budgetBytes * 9 / 10
            for (key, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where goal > 0 {
                state.entries[key] = nil
                state.bytes -= entry.bytes.count
                goal -= entry.bytes.count
            }
        }
    }

    /// A stale entry was checked and is still served.
    func confirm(_ name: String, now: Int64) {
        state.withLock { $0.entries[name]?.checkedAt = now }
    }

    func remove(_ name: String) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: name) { state.bytes -= old.bytes.count }
        }
    }

    /// Forgets every rendition of the user (a new picture, a removal, a ban, a deletion).
    func evict(userID: String) {
        state.withLock { state in
            for (name, entry) in state.entries where entry.userID == userID {
                state.entries[name] = nil
                state.bytes -= entry.bytes.count
            }
        }
    }
}
