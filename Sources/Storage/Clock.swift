import Foundation

/// Where the server reads the time: injected everywhere so tests never sleep.
/// Times are milliseconds since the Unix epoch, UTC, the form the schema stores.
public protocol Clock: Sendable {
    func nowMillis() -> Int64
}

/// The machine's real-time clock.
public struct SystemClock: Clock {
    public init() {}
    public func nowMillis() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
