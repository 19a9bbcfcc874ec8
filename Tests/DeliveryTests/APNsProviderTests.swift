import Crypto
import Delivery
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct APNsProviderTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static var script: [String: Any] { ["apnsTeamId": teamID, "apnsKeyId": keyID] }

    func provider(_ standIn: StandIn, clock: ManualClock = ManualClock(), caFile: String?? = .none) throws -> APNsProvider {
        try APNsProvider(configuration: APNsConfiguration(
            keyFile: standIn.apnsKeyFile, keyID: Self.keyID, teamID: Self.teamID, topic: "com.example.rally",
            baseURL: standIn.baseURL, caFile: caFile ?? standIn.caFile), clock: clock)
    }

    func message(_ token: String, id: String = UUID().uuidString) -> PushMessage {
        PushMessage(id: id, platform: .ios, deviceToken: token, title: "Pacenote", body: "Ana likes your video.",
                    badge: 3, collapseID: "video-abc", data: ["kind": "like", "videoId": "abc", "aps": "ignored"])
    }

    @Test func requestCarriesAVerifiedTokenTheHeadersAndThePayload() throws {
        let standIn = try StandIn(script: Self.script)
        let clock = ManualClock()
        let id = UUID().uuidString
        let outcomes = try provider(standIn, clock: clock).send([message("a1b2c3", id: id)])
        #expect(outcomes == [.delivered])

        let request = try #require(standIn.requests().first)
        #expect(request["path"] as? String == "/3/device/a1b2c3")
        #expect(request[path: "jwt", "valid"] as? Bool == true)
        #expect(request[path: "jwt", "header", "alg"] as? String == "ES256")
        #expect(request[path: "jwt", "claims", "iat"] as? Int == 1_700_000_000)
        let headers = try #require(request["headers"] as? [String: String])
        #expect(headers["apns-id"] == id)
        #expect(headers["apns-topic"] == "com.example.rally")
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-collapse-id"] == "video-abc")
        #expect(headers["apns-expiration"] == String(1_700_000_000 + 86_400))

        // The stand-in's PyJWT verdict, and ours: the token verifies with the public key.
        let bearer = try #require(headers["authorization"])
        #expect(bearer.hasPrefix("bearer "))
        let publicKey = try VerifyingKey(pem: standIn.apnsPublicKeyPEM, algorithm: .es256)
        let verified = try #require(JWT.verify(String(bearer.dropFirst(7)), with: publicKey))
        let claims = try JSONSerialization.jsonObject(with: Data(verified.claims)) as? [String: Any]
        #expect(claims?["iss"] as? String == Self.teamID)

        let payload = try #require(try JSONSerialization.jsonObject(with: Data((request["body"] as? String ?? "").utf8)) as? [String: Any])
        #expect(payload[path: "aps", "alert", "body"] as? String == "Ana likes your video.")
        #expect(payload[path: "aps", "alert", "title"] as? String == "Pacenote")
        #expect(payload[path: "aps", "badge"] as? Int == 3)
        #expect(payload[path: "aps", "sound"] as? String == "default")
        #expect(payload["videoId"] as? String == "abc")
        #expect(payload["kind"] as? String == "like")
        #expect(payload[path: "aps", "alert"] != nil) // the data key "aps" did not replace it
    }

    @Test func aBatchTravelsOnOneConnectionKeptForTheNextBatch() throws {
        let standIn = try StandIn(script: Self.script)
        let apns = try provider(standIn)
        let first = apns.send((0..<20).map { message(String(format: "%064x", $0)) })
        let second = apns.send((20..<25).map { message(String(format: "%064x", $0)) })
        #expect(first == Array(repeating: .delivered, count: 20))
        #expect(second == Array(repeating: .delivered, count: 5))
        let requests = standIn.requests()
        #expect(requests.count == 25)
        #expect(Set(requests.compactMap { $0["connection"] as? Int }) == [1])
    }

    @Test func answersMapToOutcomesAndARetriedMessageIsDeliveredOnce() throws {
        let standIn = try StandIn(script: Self.script.merging(["responses": [
            "aa01": [["status": 410, "body": ["reason": "Unregistered"]]],
            "aa02": [["status": 503, "headers": ["retry-after": "7"], "body": ["reason": "ServiceUnavailable"]], ["status": 200]],
            "aa03": [["status": 400, "body": ["reason": "BadDeviceToken"]]],
            "aa04": [["status": 413, "body": ["reason": "PayloadTooLarge"]]],
            "aa05": [["status": 429, "body": ["reason": "TooManyRequests"]]],
        ]]) { $1 })
        let apns = try provider(standIn)
        let retried = message("aa02")
        let outcomes = apns.send([message("aa01"), retried, message("aa03"), message("aa04"), message("aa05"), message("not-hex!")])
        #expect(outcomes == [.tokenGone, .retry(afterSeconds: 7, reason: "HTTP 503 ServiceUnavailable"), .tokenGone,
                             .failed(reason: "PayloadTooLarge"), .retry(afterSeconds: nil, reason: "HTTP 429 TooManyRequests"), .tokenGone])
        #expect(apns.send([retried]) == [.delivered])
        let forRetried = standIn.requests().filter { $0["path"] as? String == "/3/device/aa02" }
        #expect(forRetried.compactMap { $0["status"] as? Int } == [503, 200])
        #expect(Set(forRetried.compactMap { $0[path: "headers", "apns-id"] as? String }) == [retried.id])
        // A token that is not hex never reaches the service (it would be in the URL path).
        #expect(!standIn.requests().contains { ($0["path"] as? String)?.contains("not-hex") == true })
    }

    @Test func theProviderTokenIsReusedThenRenewedBeforeAnHour() throws {
        let standIn = try StandIn(script: Self.script)
        let clock = ManualClock()
        let apns = try provider(standIn, clock: clock)
        #expect(apns.send([message("b1")]) == [.delivered])
        clock.advance(seconds: 49 * 60)
        #expect(apns.send([message("b2")]) == [.delivered])
        clock.advance(seconds: 2 * 60)
        #expect(apns.send([message("b3")]) == [.delivered])
        let tokens = standIn.requests().compactMap { $0[path: "headers", "authorization"] as? String }
        let issuedAt = standIn.requests().compactMap { $0[path: "jwt", "claims", "iat"] as? Int }
        #expect(tokens.count == 3)
        #expect(tokens[0] == tokens[1])
        #expect(tokens[2] != tokens[1])
        #expect(issuedAt == [1_700_000_000, 1_700_000_000, 1_700_000_000 + 51 * 60])
    }

    @Test func anExpiredProviderTokenIsRenewedAndTheMessageSentAgain() throws {
        let standIn = try StandIn(script: Self.script.merging(["responses": [
            "c1": [["status": 403, "body": ["reason": "ExpiredProviderToken"]], ["status": 200]],
        ]]) { $1 })
        let apns = try provider(standIn)
        #expect(apns.send([message("c1")]) == [.delivered])
        let tokens = standIn.requests().compactMap { $0[path: "headers", "authorization"] as? String }
        #expect(tokens.count == 2)
        #expect(tokens[0] != tokens[1])
    }

    @Test func aServiceWhoseCAIsNotTrustedIsRetriedAndNothingIsSent() throws {
        let standIn = try StandIn(script: Self.script)
        let apns = try provider(standIn, caFile: .some(nil))
        let outcomes = apns.send([message("d1")])
        guard outcomes.count == 1, case .retry(afterSeconds: nil, let reason) = outcomes[0] else {
            Issue.record("one retry expected, got \(outcomes)")
            return
        }
        #expect(!reason.isEmpty, "the transport's error, for the operator's log")
        #expect(standIn.requests().isEmpty)
    }

    @Test func badSettingsAreRefusedAtStart() throws {
        let standIn = try StandIn(script: Self.script)
        #expect(throws: PushConfigurationError.unreadableFile(path: "/nonexistent.p8")) {
            try APNsProvider(configuration: APNsConfiguration(keyFile: "/nonexistent.p8", keyID: "K", teamID: "T", topic: "t"))
        }
        #expect(throws: PushConfigurationError.self) {
            try APNsProvider(configuration: APNsConfiguration(keyFile: standIn.caFile, keyID: "K", teamID: "T", topic: "t"))
        }
        #expect(throws: PushConfigurationError.missingSetting("apns-topic")) {
            try APNsProvider(configuration: APNsConfiguration(keyFile: standIn.apnsKeyFile, keyID: "K", teamID: "T", topic: " "))
        }
        #expect(throws: PushConfigurationError.invalidURL("ftp://example.com")) {
            try APNsProvider(configuration: APNsConfiguration(keyFile: standIn.apnsKeyFile, keyID: "K", teamID: "T", topic: "t", baseURL: "ftp://example.com"))
        }
    }
}
