import JSON
import Storage
import Telemetry

/// Firebase Cloud Messaging, HTTP v1 API.
///
/// One `POST {baseURL}/v1/projects/{project_id}/messages:send` per message (v1 has no batch
/// call), all multiplexed on one HTTP/2 connection, with an access token exchanged from the
/// service account's RS256 assertion and cached until shortly before it expires. A 401 gets one
/// fresh token and one more try.
public final class FCMProvider: PushProvider {
    public let name = "fcm"

    private let sendURL: String
    private let accessToken: FCMAccessToken
    private let client: HTTP2Client
    private let clock: any WallClock

    /// Reads the service account and sets up the connection pool; nothing is sent yet.
    public init(configuration: FCMConfiguration, clock: any WallClock = SystemClock()) throws(PushConfigurationError) {
        let account = try ServiceAccount.load(path: configuration.serviceAccountFile)
        sendURL = try normalizedBaseURL(configuration.baseURL) + "/v1/projects/" + account.projectID + "/messages:send"
        client = try HTTP2Client(configuration: .init(
            timeoutMillis: configuration.requestTimeoutMillis,
            caBundle: try PushConfigurationError.caBundle(configuration.caFile),
            cleartextHTTP2: true))
        accessToken = FCMAccessToken(account: account, client: client, clock: clock)
        self.clock = clock
    }

    public func send(_ messages: [PushMessage]) -> [PushOutcome] {
        var outcomes = [PushOutcome?](repeating: nil, count: messages.count)
        var pending: [Int] = []
        for (index, message) in messages.enumerated() {
            if message.platform != .android {
                outcomes[index] = .failed(reason: "not an Android installation")
            } else if message.deviceToken.isEmpty {
                outcomes[index] = .tokenGone
            } else {
                pending.append(index)
            }
        }
        for attempt in 0..<2 where !pending.isEmpty {
            let token: String
            switch accessToken.current() {
            case .success(let current):
                token = current
            case .failure(.transient(let retryAfter)):
                for index in pending { outcomes[index] = .retry(afterSeconds: retryAfter, reason: "no access token yet") }
                pending = []
                continue
            case .failure(.refused(let reason)):
                for index in pending { outcomes[index] = .failed(reason: reason) }
                pending = []
                continue
            }
            let results = client.perform(pending.map { request(for: messages[$0], accessToken: token) })
            let now = clock.nowMillis()
            var again: [Int] = []
            for (index, result) in zip(pending, results) {
                switch FCMResponse.verdict(for: result, nowMillis: now) {
                case .outcome(let outcome): outcomes[index] = outcome
                case .reauthenticate:
                    if attempt == 0 { again.append(index) } else { outcomes[index] = .failed(reason: "UNAUTHENTICATED") }
                }
            }
            if !again.isEmpty { accessToken.invalidate(token) }
            pending = again
        }
        return outcomes.map { $0 ?? .noAnswer }
    }

    func request(for message: PushMessage, accessToken: String) -> HTTPRequest {
        HTTPRequest(url: sendURL,
                    headers: [("authorization", "Bearer \(accessToken)"), ("content-type", "application/json")],
                    body: Self.payload(for: message))
    }

    /// `{"message":{"token","notification":{"title","body"},"data":{...},
    /// "android":{"collapse_key","notification":{"notification_count"}}}}`.
    static func payload(for message: PushMessage) -> [UInt8] {
        var writer = JSONWriter(capacity: 384)
        writer.beginObject()
        writer.key("message")
        writer.beginObject()
        writer.field("token", message.deviceToken)
        writer.key("notification")
        writer.beginObject()
        if let title = message.title { writer.field("title", title) }
        writer.field("body", message.body)
        writer.endObject()
        if !message.data.isEmpty {
            writer.key("data")
            writer.beginObject()
            for key in message.data.keys.sorted() {
                writer.key(key)
                writer.value(message.data[key] ?? "")
            }
            writer.endObject()
        }
        writer.key("android")
        writer.beginObject()
        if let collapseID = message.collapseID, !collapseID.isEmpty { writer.field("collapse_key", collapseID) }
        writer.key("notification")
        writer.beginObject()
        if let badge = message.badge { writer.field("notification_count", badge) }
        writer.endObject()
        writer.endObject()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
