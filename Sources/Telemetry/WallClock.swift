import Foundation

/// Where the server reads the wall-clock time (named apart from `Swift.Clock`, which measures
/// durations): injected everywhere so tests never sleep.
/// Times are milliseconds since the Unix epoch, UTC, the form the schema stores.
public protocol WallClock: Sendable {
    func nowMillis() -> Int64
}

/// The machine's real-time clock.
public struct SystemClock: WallClock {
    public init() {}
    public func nowMillis() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
