import Crypto
import Foundation
import JSON
import Storage
import Telemetry

/// Apple Push Notification service over HTTP/2 with token authentication.
///
/// Each message is `POST {baseURL}/3/device/{token}` with an ES256 provider token, all of a
/// batch multiplexed on one connection that stays open between batches. A batch rejected for
/// `ExpiredProviderToken` is re-sent once with a new token.
public final class APNsProvider: PushProvider {
    public let name = "apns"

    private let configuration: APNsConfiguration
    private let baseURL: String
    private let token: APNsProviderToken
    private let client: HTTP2Client
    private let clock: any WallClock

    /// Reads the key file and sets up the connection pool; nothing is sent yet.
    public init(configuration: APNsConfiguration, clock: any WallClock = SystemClock()) throws(PushConfigurationError) {
        for (name, value) in [("apns-key-id", configuration.keyID), ("apns-team-id", configuration.teamID), ("apns-topic", configuration.topic)]
        where value.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .missingSetting(name)
        }
        guard let data = FileManager.default.contents(atPath: configuration.keyFile) else {
            throw .unreadableFile(path: configuration.keyFile)
        }
        let key: SigningKey
        do {
            key = try SigningKey(pem: String(decoding: data, as: UTF8.self), algorithm: .es256)
        } catch {
            throw .invalidKey(path: configuration.keyFile, expected: "EC P-256 private key (.p8)")
        }
        self.configuration = configuration
        baseURL = try normalizedBaseURL(configuration.baseURL)
        token = APNsProviderToken(key: key, keyID: configuration.keyID, teamID: configuration.teamID,
                                  lifetimeSeconds: configuration.tokenLifetimeSeconds, clock: clock)
        client = try HTTP2Client(configuration: .init(
            timeoutMillis: configuration.requestTimeoutMillis,
            caBundle: try PushConfigurationError.caBundle(configuration.caFile),
            cleartextHTTP2: true))
        self.clock = clock
    }

    public func send(_ messages: [PushMessage]) -> [PushOutcome] {
        var outcomes = [PushOutcome?](repeating: nil, count: messages.count)
        var pending: [Int] = []
        for (index, message) in messages.enumerated() {
            if message.platform != .ios {
                outcomes[index] = .failed(reason: "not an iOS installation")
            } else if !Self.isDeviceToken(message.deviceToken) {
                // APNs would answer 400 BadDeviceToken; the token also goes into the URL path,
                // so anything but hex is not sent at all.
                outcomes[index] = .tokenGone
            } else {
                pending.append(index)
            }
        }
        // One renewal per call at most: a second ExpiredProviderToken is retried later.
        for attempt in 0..<2 where !pending.isEmpty {
            guard let jwt = token.current() else {
                for index in pending { outcomes[index] = .retry(afterSeconds: nil, reason: "the provider token could not be signed") }
                break
            }
            let results = client.perform(pending.map { request(for: messages[$0], jwt: jwt) })
            let now = clock.nowMillis()
            var renew: [Int] = []
            for (index, result) in zip(pending, results) {
                switch APNsResponse.verdict(for: result, nowMillis: now) {
                case .outcome(let outcome): outcomes[index] = outcome
                case .renewToken:
                    if attempt == 0 {
                        renew.append(index)
                    } else {
                        outcomes[index] = .retry(afterSeconds: nil, reason: "ExpiredProviderToken after a new provider token")
                    }
                }
            }
            if !renew.isEmpty { token.renew(rejected: jwt) }
            pending = renew
        }
        return outcomes.map { $0 ?? .noAnswer }
    }

    static func isDeviceToken(_ token: String) -> Bool {
        (1...200).contains(token.utf8.count) && token.utf8.allSatisfy(isHexDigit)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }

    func request(for message: PushMessage, jwt: String) -> HTTPRequest {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer \(jwt)"),
            ("apns-topic", configuration.topic),
            ("apns-push-type", "alert"),
            ("apns-priority", "10"),
            ("apns-expiration", String(clock.nowMillis() / 1000 + Int64(configuration.expirationSeconds))),
            ("content-type", "application/json"),
        ]
        if UUID(uuidString: message.id) != nil {
            headers.append(("apns-id", message.id))
        }
        if let collapseID = message.collapseID, !collapseID.isEmpty, collapseID.utf8.count <= 64 {
            headers.append(("apns-collapse-id", collapseID))
        }
        return HTTPRequest(url: baseURL + "/3/device/" + message.deviceToken, headers: headers, body: Self.payload(for: message))
    }

    /// `{"aps":{"alert":{"title","body"},"badge":N,"sound":"default"}, ...data}`; a data key
    /// named `aps` is left out, since it would replace the alert.
    static func payload(for message: PushMessage) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        writer.key("alert")
        writer.beginObject()
        if let title = message.title { writer.field("title", title) }
        writer.field("body", message.body)
        writer.endObject()
        if let badge = message.badge { writer.field("badge", badge) }
        writer.field("sound", "default")
        writer.endObject()
        for key in message.data.keys.sorted() where key != "aps" {
            writer.key(key)
            writer.value(message.data[key] ?? "")
        }
        writer.endObject()
        return writer.bytes
    }
}
