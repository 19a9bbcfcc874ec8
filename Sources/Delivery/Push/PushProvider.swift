import Community

/// The seam between push delivery (the outbox lane and its worker) and the services that reach
/// devices. Providers are built once at start from the operator's flags and then only called.

/// One notification to one device.
public struct PushMessage: Sendable, Equatable {
    /// Stable idempotency key per (notification, installation); a UUID string (APNs `apns-id`
    /// wants UUID form; another form is sent without it and APNs picks its own).
    public var id: String
    public var platform: PushPlatform
    public var deviceToken: String
    public var title: String?
    /// Already localized by the caller (`PushText`).
    public var body: String
    /// The unread count.
    public var badge: Int?
    /// `apns-collapse-id` / FCM `collapse_key` (for example per video), at most 64 bytes; a longer
    /// one is not sent (APNs would refuse the whole push).
    public var collapseID: String?
    /// For the app to open the right screen: `["kind": "like", "videoId": ..., "userId": ...,
    /// "notificationId": ...]`.
    public var data: [String: String]

    public init(
        id: String, platform: PushPlatform, deviceToken: String, title: String? = nil, body: String,
        badge: Int? = nil, collapseID: String? = nil, data: [String: String] = [:]
    ) {
        self.id = id
        self.platform = platform
        self.deviceToken = deviceToken
        self.title = title
        self.body = body
        self.badge = badge
        self.collapseID = collapseID
        self.data = data
    }
}

/// What became of one message.
public enum PushOutcome: Sendable, Equatable {
    case delivered
    /// APNs 410 Unregistered / 400 BadDeviceToken or DeviceTokenNotForTopic, FCM UNREGISTERED or
    /// INVALID_ARGUMENT about the token: delete the installation.
    case tokenGone
    /// 429 / 5xx / timeouts / connection errors; `afterSeconds` is the service's Retry-After,
    /// `reason` what went wrong (an HTTP status and the service's reason, or the transport's
    /// error), for the operator's log: never a key, a token or a device token.
    case retry(afterSeconds: Int?, reason: String)
    /// Permanent (other 4xx): do not retry. `reason` is the service's reason string, never a key
    /// or a token.
    case failed(reason: String)

    /// A message the provider's batch gave no outcome for: tried again later.
    public static let noAnswer = PushOutcome.retry(afterSeconds: nil, reason: "no answer")

    /// A retry for a service's HTTP answer: "HTTP 503", then the service's own reason if it gave one.
    static func retry(afterSeconds: Int?, status: Int, serviceReason: String? = nil) -> PushOutcome {
        .retry(afterSeconds: afterSeconds, reason: "HTTP \(status)" + (serviceReason.map { " \($0)" } ?? ""))
    }
}

/// A push service: APNs, FCM, or the operator's webhook relay.
public protocol PushProvider: Sendable {
    /// "apns", "fcm" or "webhook", for metrics and logs.
    var name: String { get }
    /// Sends a batch concurrently (HTTP/2 multiplexed on one connection where the service allows)
    /// and answers one outcome per message, in order. Never throws: transport failures are
    /// `.retry`. Each request has a deadline, so a call returns within about that long (twice
    /// when a provider token must be renewed and the batch re-sent).
    func send(_ messages: [PushMessage]) -> [PushOutcome]
}
