/// When a failed job runs again: exponential backoff from `baseMillis`, capped at
/// `maxDelayMillis`, and dead after `maxAttempts`. A pure value, so tests never sleep.
///
/// With `jitter` above 0, each delay is shortened by a random part of up to that fraction,
/// so deliveries that failed together (a push service's outage) do not all come back in the
/// same instant. The caller supplies the random number, which keeps `decide` pure.
public struct RetryPolicy: Sendable, Equatable {
    public var baseMillis: Int64 = 1_000
    public var maxDelayMillis: Int64 = 3_600_000
    public var maxAttempts = 10
    /// 0 (none) to 1: the largest fraction of a delay that randomness may take away.
    public var jitter = 0.0

    public init() {}

    public enum Decision: Sendable, Equatable {
        /// Try again at this time.
        case retry(at: Int64)
        /// Give up: the job is kept as `dead` for an operator.
        case dead
    }

    /// What to do after attempt number `attempts` (1-based) failed at `now`. `random` is in
    /// 0..<1 (only read with jitter); `notBefore` is a time the other side asked for
    /// (`Retry-After`), which the retry never precedes.
    public func decide(attempts: Int, now: Int64, random: Double = 0, notBefore: Int64? = nil) -> Decision {
        guard attempts < maxAttempts else { return .dead }
        let exponent = min(attempts - 1, 40)
        let delay = min(maxDelayMillis, baseMillis << Int64(exponent))
        let jittered = delay - Int64(Double(delay) * jitter * min(max(random, 0), 1))
        return .retry(at: max(now + jittered, notBefore ?? now))
    }
}
