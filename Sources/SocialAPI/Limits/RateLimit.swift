/// One limit of API.md "Limits on abuse": `count` per `periodMillis`, or off.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public let count: Int
    public let periodMillis: Int64

    public init(count: Int, periodMillis: Int64) {
        self.count = count
        self.periodMillis = periodMillis
    }

    /// Parses the flag syntax: `N/s`, `N/m`, `N/h`, or `off` (nil). Throws a sentence for `--help` users.
    public static func parse(_ text: String) throws(RateLimitSyntaxError) -> RateLimit? {
        if text.lowercased() == "off" { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let units: [Substring: Int64] = ["s": 1_000, "m": 60_000, "h": 3_600_000]
        guard parts.count == 2, let count = Int(parts[0]), (1...1_000_000).contains(count), let unit = units[parts[1]] else {
            throw RateLimitSyntaxError(text: text)
        }
        return RateLimit(count: count, periodMillis: unit)
    }

    public var description: String {
        let unit = switch periodMillis { case 1_000: "s"; case 60_000: "m"; case 3_600_000: "h"; default: "\(periodMillis)ms" }
        return "\(count)/\(unit)"
    }
}

public struct RateLimitSyntaxError: Error, Sendable, CustomStringConvertible {
    public let text: String
    public var description: String { "\"\(text)\" is not a limit: use N/s, N/m, N/h (1 to 1000000) or off" }
}

/// Every limit of API.md with its flag's default; nil is off.
public struct RateLimits: Sendable {
    /// Sign-ups per client address (`--limit-signups 50/h`).
    public var signups: RateLimit? = RateLimit(count: 50, periodMillis: 3_600_000)
    /// Logins per client address (`--limit-logins 60/m`), beside the per-name lockout.
    public var logins: RateLimit? = RateLimit(count: 60, periodMillis: 60_000)
    /// Reset and verification mails per address mailed to (`--limit-mails 5/h`).
    public var mails: RateLimit? = RateLimit(count: 5, periodMillis: 3_600_000)
    /// Reset and verification mails per client address (`--limit-mails-per-ip 50/h`).
    public var mailsPerIP: RateLimit? = RateLimit(count: 50, periodMillis: 3_600_000)
    /// Writes (videos, likes, comments, flags, follows) per user (`--limit-writes 600/m`).
    public var writes: RateLimit? = RateLimit(count: 600, periodMillis: 60_000)
    /// Every request per client address (`--limit-requests off`).
    public var requests: RateLimit?
    /// Socket addresses whose `X-Forwarded-For` is believed (`--trusted-proxy`).
    public var trustedProxies: Set<String> = []
    /// Keys each limit remembers at most (memory bound, see `RateLimiter`).
    public var tableSize = 1 << 16

    public init() {}

    /// Every limit off (benchmarks, tests that need volume).
    public static var off: RateLimits {
        var limits = RateLimits()
        limits.signups = nil
        limits.logins = nil
        limits.mails = nil
        limits.mailsPerIP = nil
        limits.writes = nil
        limits.requests = nil
        return limits
    }
}
