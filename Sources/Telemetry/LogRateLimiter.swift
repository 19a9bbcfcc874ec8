/// Decides which of a flood of identical log events are written: at most one per `interval`
/// per key, and the next one written carries how many were dropped in between.
///
/// A pure value with the clock passed in (tests never sleep). Keys must come from a small,
/// fixed set (a call site, a C format string): one entry is kept per key, forever.
public struct LogRateLimiter: Sendable {
    /// What to do with one event.
    public enum Decision: Equatable, Sendable {
        /// Write it; `suppressed` events of the same key were dropped since the last one written.
        case log(suppressed: Int)
        /// Drop it (counted, and reported with the next one written).
        case suppress
    }

    struct Window {
        var lastLoggedMillis: Int64
        var suppressed: Int
    }

    /// Milliseconds between two written events of one key.
    public let intervalMillis: Int64
    var windows: [String: Window] = [:]

    public init(intervalMillis: Int64 = 1_000) {
        self.intervalMillis = max(0, intervalMillis)
    }

    /// Records one event of `key` at `nowMillis` (any monotonic clock) and says whether to write it.
    public mutating func admit(_ key: String, nowMillis: Int64) -> Decision {
        guard var window = windows[key] else {
            windows[key] = Window(lastLoggedMillis: nowMillis, suppressed: 0)
            return .log(suppressed: 0)
        }
        // A clock that went backwards (it should not) counts as a new interval rather than
        // silencing the key until it catches up.
        if nowMillis - window.lastLoggedMillis >= intervalMillis || nowMillis < window.lastLoggedMillis {
            let dropped = window.suppressed
            window = Window(lastLoggedMillis: nowMillis, suppressed: 0)
            windows[key] = window
            return .log(suppressed: dropped)
        }
        window.suppressed += 1
        windows[key] = window
        return .suppress
    }
}
