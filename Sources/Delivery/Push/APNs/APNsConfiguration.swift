/// The operator's APNs settings (`--apns-*` flags).
public struct APNsConfiguration: Sendable {
    /// The `.p8` file Apple issues: a PKCS#8 PEM EC P-256 key.
    public var keyFile: String
    /// The key's 10-character id (`kid`).
    public var keyID: String
    /// The developer team id (`iss`).
    public var teamID: String
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    /// `https://api.push.apple.com`, the sandbox `https://api.sandbox.push.apple.com`, or a stand-in.
    public var baseURL: String
    /// Extra CAs to trust (`--push-ca-file`), added to the system bundle.
    public var caFile: String?
    /// Deadline of each request.
    public var requestTimeoutMillis = 10_000
    /// How long APNs keeps trying an offline device (`apns-expiration`).
    public var expirationSeconds = 86_400
    /// The provider token is renewed once this old. Apple refuses tokens older than an hour and
    /// renewals more often than every 20 minutes, so 50 minutes leaves room on both sides.
    public var tokenLifetimeSeconds = 3_000

    public init(keyFile: String, keyID: String, teamID: String, topic: String,
                baseURL: String = "https://api.push.apple.com", caFile: String? = nil) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.baseURL = baseURL
        self.caFile = caFile
    }
}
