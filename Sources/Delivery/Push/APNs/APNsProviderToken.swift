import Crypto
import JSON
import Storage
import Synchronization
import Telemetry

/// The APNs provider token (an ES256 JWT), signed once and reused until it is
/// `lifetimeSeconds` old, or renewed when APNs answers `ExpiredProviderToken`.
///
/// Apple: "Refresh your token no more than once every 20 minutes and no less than once every
/// 60 minutes" (Establishing a token-based connection to APNs).
final class APNsProviderToken: Sendable {
    private struct Issued { var token: String; var issuedAtSeconds: Int64 }

    private let key: SigningKey
    private let keyID: String
    private let teamID: String
    private let lifetimeSeconds: Int64
    private let clock: any WallClock
    private let issued = Mutex<Issued?>(nil)

    init(key: SigningKey, keyID: String, teamID: String, lifetimeSeconds: Int, clock: any WallClock) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.lifetimeSeconds = Int64(lifetimeSeconds)
        self.clock = clock
    }

    /// The token to send now; nil only if OpenSSL cannot sign (a broken deployment).
    func current() -> String? {
        let now = clock.nowMillis() / 1000
        return issued.withLock { issued in
            if let current = issued, now - current.issuedAtSeconds < lifetimeSeconds, now >= current.issuedAtSeconds {
                return current.token
            }
            guard let token = sign(at: now) else { return nil }
            issued = Issued(token: token, issuedAtSeconds: now)
            return token
        }
    }

    /// Drops `rejected` so the next `current()` signs a new token. A token already replaced by
    /// another thread is left alone, so one batch of rejections renews once.
    func renew(rejected: String) {
        issued.withLock { issued in
            if issued?.token == rejected { issued = nil }
        }
    }

    private func sign(at seconds: Int64) -> String? {
        var header = JSONWriter(capacity: 64)
        header.beginObject()
        header.field("alg", "ES256")
        header.field("kid", keyID)
        header.endObject()
        var claims = JSONWriter(capacity: 64)
        claims.beginObject()
        claims.field("iss", teamID)
        claims.field("iat", seconds)
        claims.endObject()
        return try? JWT.sign(header: header.bytes, claims: claims.bytes, with: key)
    }
}
