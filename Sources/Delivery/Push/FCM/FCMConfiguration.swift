/// The operator's FCM settings (`--fcm-*` flags).
public struct FCMConfiguration: Sendable {
    /// A Google service account's JSON key (`project_id`, `client_email`, `private_key`, `token_uri`).
    public var serviceAccountFile: String
    /// `https://fcm.googleapis.com` or a stand-in. The token endpoint is the file's `token_uri`.
    public var baseURL: String
    /// Extra CAs to trust (`--push-ca-file`), added to the system bundle.
    public var caFile: String?
    /// Deadline of each request, token exchange included.
    public var requestTimeoutMillis = 10_000

    public init(serviceAccountFile: String, baseURL: String = "https://fcm.googleapis.com", caFile: String? = nil) {
        self.serviceAccountFile = serviceAccountFile
        self.baseURL = baseURL
        self.caFile = caFile
    }
}
