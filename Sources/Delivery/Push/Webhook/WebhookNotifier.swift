import Crypto
import Storage
import Telemetry

/// One notification for the operator's relay: its JSON as the relay receives it.
///
/// The webhook is not a `PushProvider`: it gets each notification once, whole (who, what, to
/// whom), not once per device with a device's text, so it takes its own message type.
public struct WebhookDelivery: Sendable, Equatable {
    /// Stable idempotency key, sent as `X-Pacenote-Delivery`, the same on every retry.
    public var id: String
    /// The notification JSON, POSTed as is and signed byte for byte.
    public var body: [UInt8]

    public init(id: String, body: [UInt8]) {
        self.id = id
        self.body = body
    }
}

/// The operator's settings for the relay (`--webhook-url`, `--webhook-secret`).
public struct WebhookConfiguration: Sendable {
    public var url: String
    public var secret: String
    /// Extra CAs to trust (`--push-ca-file`), added to the system bundle.
    public var caFile: String?
    public var requestTimeoutMillis = 10_000

    public init(url: String, secret: String, caFile: String? = nil) {
        self.url = url
        self.secret = secret
        self.caFile = caFile
    }
}

/// POSTs notifications to the operator's relay, signed with `X-Pacenote-Signature`
/// (`WebhookSignature`). 2xx is delivered, 429 and 5xx are retried (honouring Retry-After), any
/// other answer is a permanent failure. The URL is the operator's, never a client's.
public final class WebhookNotifier: Sendable {
    public let name = "webhook"

    private let url: String
    private let key: HMACKey
    private let client: HTTP2Client
    private let clock: any WallClock

    public init(configuration: WebhookConfiguration, clock: any WallClock = SystemClock()) throws(PushConfigurationError) {
        guard !configuration.secret.isEmpty else { throw .missingSetting("webhook-secret") }
        url = try normalizedBaseURL(configuration.url)
        key = HMACKey(bytes: Array(configuration.secret.utf8))
        // HTTP/2 when the relay offers it over TLS; plain http:// relays get HTTP/1.1, which
        // every server speaks.
        client = try HTTP2Client(configuration: .init(
            timeoutMillis: configuration.requestTimeoutMillis,
            caBundle: try PushConfigurationError.caBundle(configuration.caFile),
            cleartextHTTP2: false))
        self.clock = clock
    }

    /// One outcome per delivery, in order; never throws.
    public func send(_ deliveries: [WebhookDelivery]) -> [PushOutcome] {
        let timestamp = clock.nowMillis() / 1000
        let requests = deliveries.map { delivery in
            HTTPRequest(url: url, headers: [
                ("content-type", "application/json"),
                (WebhookSignature.headerName, WebhookSignature.header(body: delivery.body, key: key, timestamp: timestamp)),
                ("X-Pacenote-Delivery", delivery.id),
            ], body: delivery.body)
        }
        let now = clock.nowMillis()
        return client.perform(requests).map { result in
            switch result {
            case .failure(let error):
                return .retry(afterSeconds: nil, reason: error.message)
            case .success(let response):
                switch response.status {
                case 200...299: return .delivered
                case 429, 500...599:
                    return .retry(afterSeconds: RetryAfter.seconds(response.headers["retry-after"], nowMillis: now), status: response.status)
                case 400...499: return .failed(reason: "HTTP \(response.status)")
                default: return .retry(afterSeconds: nil, status: response.status)
                }
            }
        }
    }
}
