/// When a failed job runs again: exponential backoff from `baseMillis`, capped at
/// `maxDelayMillis`, and dead after `maxAttempts`. A pure value, so tests never sleep.
public struct RetryPolicy: Sendable, Equatable {
    public var baseMillis: Int64 = 1_000
    public var maxDelayMillis: Int64 = 3_600_000
    public var maxAttempts = 10

    public init() {}

    public enum Decision: Sendable, Equatable {
        /// Try again at this time.
        case retry(at: Int64)
        /// Give up: the job is kept as `dead` for an operator.
        case dead
    }

    /// What to do after attempt number `attempts` (1-based) failed at `now`.
    public func decide(attempts: Int, now: Int64) -> Decision {
        guard attempts < maxAttempts else { return .dead }
        let exponent = min(attempts - 1, 40)
        let delay = min(maxDelayMillis, baseMillis << Int64(exponent))
        return .retry(at: now + delay)
    }
}
