import Synchronization

/// A log for events that come in floods (refused connections, late request heads, MHD's
/// diagnostics, pushes retried while a service is down): at most one line per second per kind,
/// carrying how many were dropped since the last (`suppressed`), so a flood cannot fill the disk.
public final class RateLimitedLog: Sendable {
    let logger: Logger
    let limiter: Mutex<LogRateLimiter>

    public init(logger: Logger, intervalMillis: Int64 = 1_000) {
        self.logger = logger
        limiter = Mutex(LogRateLimiter(intervalMillis: intervalMillis))
    }

    /// Writes `message` at warning level unless this `kind` was written less than an interval ago.
    /// `kind` must come from a small fixed set (see `LogRateLimiter`).
    public func warning(kind: String, _ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard logger.level <= .warning else { return }
        let decision = limiter.withLock { $0.admit(kind, nowMillis: monotonicMillis()) }
        guard case .log(let suppressed) = decision else { return }
        let line = suppressed > 0 ? logger.with("suppressed", String(suppressed)) : logger
        line.warning(message(), metadata)
    }
}
