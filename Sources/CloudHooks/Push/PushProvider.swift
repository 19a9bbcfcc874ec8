public enum PushPlatform: String, Sendable, CaseIterable {
    case ios, android
}

/// One notification to one device.
public struct PushMessage: Sendable, Equatable {
    /// Stable idempotency key per (notification, installation), a UUID string (APNs `apns-id`).
    public var id: String
    public var platform: PushPlatform
    public var deviceToken: String
    public var title: String?
    /// Already in the device's language.
    public var body: String
    /// The recipient's unread count.
    public var badge: Int?
    /// Messages with the same one replace each other on the lock screen (`apns-collapse-id`).
    public var collapseID: String?
    /// For the app to open the right screen: kind, notificationId, videoId, userId.
    public var data: [String: String]

    public init(id: String, platform: PushPlatform, deviceToken: String, title: String? = nil, body: String,
                badge: Int? = nil, collapseID: String? = nil, data: [String: String] = [:]) {
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

public enum PushOutcome: Sendable, Equatable {
    case delivered
    /// The service says the device token is no longer valid: delete the installation.
    case tokenGone
    /// 429, 5xx, a timeout or a connection error; `Retry-After` when given.
    case retry(afterSeconds: Int?)
    /// Permanent: the service refused the message itself.
    case failed(reason: String)
}

public protocol PushProvider: Sendable {
    /// "apns", "fcm" or "webhook", for metrics and logs.
    var name: String { get }
    /// Sends a batch concurrently and answers one outcome per message, in order. Never throws.
    func send(_ messages: [PushMessage]) -> [PushOutcome]
}
