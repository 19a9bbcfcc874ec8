import Auth
import Crypto
import Foundation
import Telemetry

/// A provider's signing keys by `kid`, fetched from its JWKS URL and kept for as long as the
/// answer's `Cache-Control: max-age` says (clamped), so a sign-in normally costs no request.
///
/// When to fetch (every time below is the injected monotonic clock, so tests never sleep):
/// - never fetched, or the set is past its max-age: fetch;
/// - a `kid` the current set lacks (a key rotation, or a forged token): fetch again, but at
///   most once every `unknownKeyRefreshSeconds`, so a flood of tokens with random `kid`s costs
///   the provider one request an interval; in between such a `kid` is simply unknown;
/// - after a failed fetch, none for `failureRetrySeconds`, whatever comes in.
///
/// At most one fetch is in flight. A caller that needs its outcome (its `kid` is not in a fresh
/// set) waits for it, at most the client's bound, and then answers from whatever is cached; a
/// caller whose `kid` is in a set past its max-age but within `staleGraceSeconds` is answered
/// from that set at once (the keys do not become wrong at max-age; a provider that cannot be
/// reached must not sign everyone out of new sessions for that). Nothing waits longer than the
/// fetch's own bound (`ProviderHTTPClient.timeoutMillis`) plus a quarter second.
public final class JWKSCache: @unchecked Sendable {
    // @unchecked Sendable: every mutable field below is read and written only with `condition`
    // locked; the fetch itself runs unlocked, with `fetching` set so no second one starts.

    public struct Configuration: Sendable {
        /// The JWKS document (`--apple-jwks-url`, `--google-jwks-url`).
        public var url: String
        /// How long a set is kept when the answer says nothing (`Cache-Control` without max-age).
        public var defaultMaxAgeSeconds: Int
        /// The bounds put on a provider's max-age: 5 minutes to 24 hours.
        public var maxAgeRange: ClosedRange<Int>
        /// An unknown `kid` fetches the set again at most this often.
        public var unknownKeyRefreshSeconds: Int
        /// After a failed fetch, no other for this long.
        public var failureRetrySeconds: Int
        /// How long past its max-age a set still answers for the keys it holds while fetching it
        /// again fails.
        public var staleGraceSeconds: Int
        /// At most this many keys are kept (providers publish two or three).
        public var maxKeys: Int

        public init(url: String, defaultMaxAgeSeconds: Int = 3_600, maxAgeRange: ClosedRange<Int> = 300...86_400,
                    unknownKeyRefreshSeconds: Int = 60, failureRetrySeconds: Int = 5, staleGraceSeconds: Int = 3_600, maxKeys: Int = 32) {
            self.url = url
            self.defaultMaxAgeSeconds = defaultMaxAgeSeconds
            self.maxAgeRange = maxAgeRange
            self.unknownKeyRefreshSeconds = unknownKeyRefreshSeconds
            self.failureRetrySeconds = failureRetrySeconds
            self.staleGraceSeconds = staleGraceSeconds
            self.maxKeys = maxKeys
        }
    }

    public let provider: IdentityProvider
    private let configuration: Configuration
    private let client: ProviderHTTPClient
    private let clock: @Sendable () -> Int64
    private let log: RateLimitedLog?
    private let fetchedOK: Counter?
    private let fetchFailed: Counter?

    private let condition = NSCondition()
    private var keys: [String: VerifyingKey] = [:]
    private var hasSet = false
    private var expiresAtMillis: Int64 = 0
    private var lastAttemptMillis: Int64?
    private var lastAttemptFailed = false
    private var fetching = false
    /// Incremented when a fetch ends: what waiters wait for.
    private var generation = 0

    /// - Parameters:
    ///   - clock: monotonic milliseconds (`Telemetry.monotonicMillis` unless a test turns it).
    ///   - metrics: counts fetches as `pacenote_signin_key_fetches_total{provider,result}`.
    /// - Throws: `ProviderConfigurationError.invalidURL` for a URL that is not https (nor http
    ///   to loopback), `.outOfRange` for a bound that makes no sense.
    public init(_ configuration: Configuration, provider: IdentityProvider, client: ProviderHTTPClient,
                logger: Logger? = nil, metrics: MetricsRegistry? = nil,
                clock: @escaping @Sendable () -> Int64 = monotonicMillis) throws(ProviderConfigurationError) {
        guard ProviderURL.isAllowed(configuration.url) else {
            throw .invalidURL(setting: "--\(provider.rawValue)-jwks-url", url: configuration.url)
        }
        guard configuration.maxAgeRange.lowerBound >= 0, configuration.unknownKeyRefreshSeconds >= 0,
              configuration.failureRetrySeconds >= 0, configuration.staleGraceSeconds >= 0, configuration.maxKeys > 0 else {
            throw .outOfRange(setting: "\(provider.rawValue) key cache", reason: "intervals must not be negative, maxKeys positive")
        }
        self.configuration = configuration
        self.provider = provider
        self.client = client
        self.clock = clock
        log = logger.map { RateLimitedLog(logger: $0.with("provider", provider.rawValue), intervalMillis: 10_000) }
        fetchedOK = metrics?.counter("pacenote_signin_key_fetches_total", help: "JWKS fetches from sign-in providers, by result.",
                                     labels: [("provider", provider.rawValue), ("result", "ok")])
        fetchFailed = metrics?.counter("pacenote_signin_key_fetches_total", help: "JWKS fetches from sign-in providers, by result.",
                                       labels: [("provider", provider.rawValue), ("result", "failed")])
    }

    /// The provider's key `kid`, or nil when its current set has no such key (the token is not
    /// the provider's).
    /// - Throws: `.unavailable` when the set could not be fetched in time and no cached set can
    ///   answer (never fetched, past its grace, or lacking `kid` while its refresh failed).
    public func key(for kid: String) throws(IdentityVerificationError) -> VerifyingKey? {
        // A kid longer than any kept one cannot be in a set: no fetch for it.
        guard !kid.isEmpty, kid.utf8.count <= 256 else { return nil }
        condition.lock()
        defer { condition.unlock() }
        var attempted = false
        while true {
            let now = clock()
            let fresh = hasSet && now < expiresAtMillis
            if fresh, let key = keys[kid] { return key }
            let withinGrace = hasSet && now < expiresAtMillis + Int64(configuration.staleGraceSeconds) * 1_000
            if !attempted {
                if fetching {
                    // Someone else's fetch will answer; a stale set that has the key answers now.
                    if withinGrace, let key = keys[kid] { return key }
                    waitForFetch()
                    attempted = true
                    continue
                }
                if mayFetch(now: now, fresh: fresh) {
                    fetchUnlocked()
                    attempted = true
                    continue
                }
            }
            if withinGrace, let key = keys[kid] { return key }
            // A fresh set lacks the kid and the last look at the provider succeeded: no such key.
            if fresh && !lastAttemptFailed && !fetching { return nil }
            throw .unavailable
        }
    }

    /// Whether a fetch may start now (the lock is held).
    private func mayFetch(now: Int64, fresh: Bool) -> Bool {
        guard let last = lastAttemptMillis else { return true }
        let since = now - last
        if lastAttemptFailed { return since >= Int64(configuration.failureRetrySeconds) * 1_000 }
        if !fresh { return true }
        return since >= Int64(configuration.unknownKeyRefreshSeconds) * 1_000
    }

    /// Waits (the lock is held, and released while waiting) until the fetch in flight ends or
    /// the client's bound passes.
    private func waitForFetch() {
        let started = generation
        let deadline = Date(timeIntervalSinceNow: Double(client.timeoutMillis + 250) / 1_000)
        while generation == started && fetching {
            if !condition.wait(until: deadline) { return }
        }
    }

    /// Fetches the set with the lock released, then records the outcome (the lock is held on
    /// entry and on return).
    private func fetchUnlocked() {
        fetching = true
        condition.unlock()
        let outcome = fetch()
        condition.lock()
        let now = clock()
        lastAttemptMillis = now
        switch outcome {
        case .success(let (fetched, maxAgeSeconds)):
            keys = fetched
            hasSet = true
            expiresAtMillis = now + Int64(maxAgeSeconds) * 1_000
            lastAttemptFailed = false
        case .failure:
            lastAttemptFailed = true
        }
        fetching = false
        generation += 1
        condition.broadcast()
    }

    private struct FetchFailure: Error {}

    /// One GET of the set, judged; runs without the lock.
    private func fetch() -> Result<([String: VerifyingKey], Int), FetchFailure> {
        let why: String
        switch client.get(configuration.url) {
        case .failure(let error):
            why = error.description
        case .success(let response) where response.status != 200:
            why = "the provider answered \(response.status)"
        case .success(let response):
            if let fetched = JWKSDocument.keys(from: response.body, maxKeys: configuration.maxKeys) {
                let maxAge = JWKSDocument.maxAge(cacheControl: response.headers["cache-control"],
                                                 default: configuration.defaultMaxAgeSeconds, range: configuration.maxAgeRange)
                fetchedOK?.increment()
                return .success((fetched, maxAge))
            }
            why = "the answer is not a JWKS with an RS256 key of 2048 bits or more"
        }
        fetchFailed?.increment()
        log?.warning(kind: "signin_keys_\(provider.rawValue)", "sign-in keys could not be fetched: \(why)")
        return .failure(FetchFailure())
    }
}
