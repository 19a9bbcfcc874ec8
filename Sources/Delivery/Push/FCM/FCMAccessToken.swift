import Crypto
import JSON
import Storage
import Synchronization
import Telemetry

/// An OAuth 2 access token for FCM, obtained with a service account's signed assertion
/// (RFC 7523, Google's "Using OAuth 2.0 for Server to Server Applications") and cached until a
/// minute before it expires.
final class FCMAccessToken: Sendable {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Renew this long before `expires_in` runs out, so a token never expires in flight.
    static let marginSeconds: Int64 = 60

    /// Why no token could be had.
    enum Failure: Error, Equatable {
        /// Transport error, 429 or 5xx at the token endpoint.
        case transient(retryAfter: Int?)
        /// The endpoint refused the assertion (4xx): the service account is wrong or revoked.
        case refused(reason: String)
    }

    private struct Cached { var token: String; var expiresAtMillis: Int64 }

    private let account: ServiceAccount
    private let client: HTTP2Client
    private let clock: any WallClock
    private let cached = Mutex<Cached?>(nil)

    init(account: ServiceAccount, client: HTTP2Client, clock: any WallClock) {
        self.account = account
        self.client = client
        self.clock = clock
    }

    /// A valid token, from the cache or a new exchange. Exchanges are serialized by the client's
    /// lock; two threads missing the cache at once may both exchange, which is harmless.
    func current() -> Result<String, Failure> {
        let now = clock.nowMillis()
        if let token = cached.withLock({ $0.flatMap { now < $0.expiresAtMillis ? $0.token : nil } }) {
            return .success(token)
        }
        return exchange(now: now)
    }

    /// Forgets `rejected` (FCM answered 401 with it) so the next `current()` exchanges again.
    func invalidate(_ rejected: String) {
        cached.withLock { if $0?.token == rejected { $0 = nil } }
    }

    private func exchange(now: Int64) -> Result<String, Failure> {
        guard let assertion = assertion(nowSeconds: now / 1000) else { return .failure(.transient(retryAfter: nil)) }
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = HTTPRequest(url: account.tokenURI,
                                  headers: [("content-type", "application/x-www-form-urlencoded")],
                                  body: Array(body.utf8))
        guard let result = client.perform([request]).first else { return .failure(.transient(retryAfter: nil)) }
        switch result {
        case .failure:
            return .failure(.transient(retryAfter: nil))
        case .success(let response):
            let json = try? JSONValue.parse(response.body)
            switch response.status {
            case 200:
                guard let token = json?["access_token"]?.stringValue, !token.isEmpty else {
                    return .failure(.transient(retryAfter: nil))
                }
                let lifetime = Int64(json?["expires_in"]?.intValue ?? 3600)
                let expires = now + max(0, lifetime - Self.marginSeconds) * 1000
                cached.withLock { $0 = Cached(token: token, expiresAtMillis: expires) }
                return .success(token)
            case 429, 500...599:
                return .failure(.transient(retryAfter: RetryAfter.seconds(response.headers["retry-after"], nowMillis: now)))
            default:
                // OAuth errors carry a short code ("invalid_grant"); never the assertion.
                let code = json?["error"]?.stringValue ?? "HTTP \(response.status)"
                return .failure(.refused(reason: "token exchange: \(code)"))
            }
        }
    }

    /// `{"iss": client_email, "scope": FCM, "aud": token_uri, "iat", "exp": iat + 3600}`, RS256.
    private func assertion(nowSeconds: Int64) -> String? {
        var header = JSONWriter(capacity: 96)
        header.beginObject()
        header.field("alg", "RS256")
        header.field("typ", "JWT")
        if let kid = account.privateKeyID { header.field("kid", kid) }
        header.endObject()
        var claims = JSONWriter(capacity: 256)
        claims.beginObject()
        claims.field("iss", account.clientEmail)
        claims.field("scope", Self.scope)
        claims.field("aud", account.tokenURI)
        claims.field("iat", nowSeconds)
        claims.field("exp", nowSeconds + 3600)
        claims.endObject()
        return try? JWT.sign(header: header.bytes, claims: claims.bytes, with: account.key)
    }
}
