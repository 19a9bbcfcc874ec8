import Auth
import HTTP
import Storage
import Telemetry

/// The limiters of API.md "Limits on abuse", one per limit that is on, and the refusal they
/// answer: 429 `rate_limited` with `Retry-After`, counted in `pacenote_rate_limited_total{limit}`.
///
/// In memory of this process: with several servers, each enforces its own share
/// (docs/deployment.md "Rate limits with several servers").
public final class AbuseLimits: Sendable {
    /// The names of the limits, as metrics label them.
    enum Name: String, CaseIterable {
        case signups, logins, mails, mailsPerIP = "mails_per_ip", writes, requests
    }

    let configuration: RateLimits
    private let limiters: [Name: RateLimiter]
    private let metrics: MetricsRegistry
    private let clock: any WallClock

    public init(configuration: RateLimits, metrics: MetricsRegistry, clock: any WallClock) {
        self.configuration = configuration
        self.metrics = metrics
        self.clock = clock
        let limits: [(Name, RateLimit?)] = [
            (.signups, configuration.signups), (.logins, configuration.logins), (.mails, configuration.mails),
            (.mailsPerIP, configuration.mailsPerIP), (.writes, configuration.writes), (.requests, configuration.requests),
        ]
        var limiters: [Name: RateLimiter] = [:]
        for case let (name, limit?) in limits { limiters[name] = RateLimiter(limit: limit, tableSize: configuration.tableSize) }
        self.limiters = limiters
    }

    /// The client address of `request` as the limits see it.
    func clientKey(_ request: Request) -> String {
        ClientAddress.resolve(request, trustedProxies: configuration.trustedProxies)
    }

    /// Counts one event of `key` against the limit `name` (nothing when that limit is off, and
    /// then `key` is not even worked out: most requests pass limits that are off);
    /// throws the 429 when it is over.
    func check(_ name: Name, key: @autoclosure () -> String) throws(APIError) {
        guard let limiter = limiters[name] else { return }
        guard case .refused(let millis) = limiter.check(key(), now: clock.nowMillis()) else { return }
        metrics.counter("pacenote_rate_limited_total", help: "Requests refused by a rate limit, by limit.",
                        labels: [("limit", name.rawValue)]).increment()
        // Whole seconds, rounded up, at least 1: a client that waits that long gets through.
        let seconds = max(1, (millis + 999) / 1_000)
        throw APIError(status: 429, code: "rate_limited", message: "Too many requests; try again later.",
                       headers: [("Retry-After", String(seconds))])
    }
}

extension AbuseLimits {
    /// Counts one mail to `address` asked for by `request` against both mail limits (API.md
    /// `--limit-mails`, `--limit-mails-per-ip`): every mail the server sends counts.
    func checkMail(to address: String, _ request: Request) throws(APIError) {
        try check(.mails, key: Validation.key(address))
        try check(.mailsPerIP, key: clientKey(request))
    }

    /// The same for a mail that is a side effect of a request that goes ahead anyway (the
    /// verification after sign-up): counted, and answered whether it may be sent.
    func allowsMail(to address: String, _ request: Request) -> Bool {
        (try? checkMail(to: address, request)) != nil
    }
}

/// The limits a route counts its requests against (`RoutePolicy.limit`), declared where the
/// route is registered.
extension RouteLimit {
    /// `--limit-signups`, per client address.
    static let signups = RouteLimit(AbuseLimits.Name.signups.rawValue)
    /// `--limit-logins`, per client address.
    static let logins = RouteLimit(AbuseLimits.Name.logins.rawValue)
    /// `--limit-writes`, per signed-in user: API.md's writes (videos, likes, comments, flags, follows).
    static let writes = RouteLimit(AbuseLimits.Name.writes.rawValue)
}

/// Applies the limits that depend only on the route and the caller: all requests per address
/// (`.beforeAuth`, first, so even requests with a bad token count), then the matched route's
/// `RoutePolicy.limit` (`.afterAuth`, once the caller is known): sign-ups and logins per
/// address, writes per user. The mail limits need the address a mail goes to and are checked
/// by the mail routes.
struct RateLimitMiddleware: Middleware {
    typealias Identity = Accounts.Identity

    enum Stage { case beforeAuth, afterAuth }

    let limits: AbuseLimits
    let stage: Stage

    func handle(_ request: Request, context: Context, next: (Request, Context) -> Response) throws -> Response {
        switch stage {
        case .beforeAuth:
            try limits.check(.requests, key: limits.clientKey(request))
        case .afterAuth:
            switch context.policy.limit {
            case nil: break
            case .signups?: try limits.check(.signups, key: limits.clientKey(request))
            case .logins?: try limits.check(.logins, key: limits.clientKey(request))
            case .writes?:
                if let identity = context.identity { try limits.check(.writes, key: identity.userID) }
            case let other?: preconditionFailure("route limit \(other) is not one of AbuseLimits'")
            }
        }
        return next(request, context)
    }
}
