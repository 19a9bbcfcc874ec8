import Delivery
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct FCMProviderTests {
    func provider(_ standIn: StandIn, clock: ManualClock = ManualClock()) throws -> FCMProvider {
        try FCMProvider(configuration: FCMConfiguration(
            serviceAccountFile: try standIn.writeServiceAccount(), baseURL: standIn.baseURL, caFile: standIn.caFile), clock: clock)
    }

    func message(_ token: String) -> PushMessage {
        PushMessage(id: UUID().uuidString, platform: .android, deviceToken: token, title: "Pacenote",
                    body: "A Ana le gusta tu vídeo.", badge: 5, collapseID: "video-xyz", data: ["kind": "like", "videoId": "xyz"])
    }

    @Test func theAccessTokenIsExchangedOnceCachedAndRenewedWhenItExpires() throws {
        let standIn = try StandIn(script: ["expiresIn": 600])
        let clock = ManualClock()
        let fcm = try provider(standIn, clock: clock)
        #expect(fcm.send([message("tok-1"), message("tok-2")]) == [.delivered, .delivered])
        clock.advance(seconds: 500)
        #expect(fcm.send([message("tok-3")]) == [.delivered])
        clock.advance(seconds: 60) // 560 s: inside the last minute of the token's 600
        #expect(fcm.send([message("tok-4")]) == [.delivered])

        let requests = standIn.requests()
        let exchanges = requests.filter { $0["path"] as? String == "/token" }
        #expect(exchanges.count == 2)
        let first = try #require(exchanges.first)
        #expect(first["grantType"] as? String == "urn:ietf:params:oauth:grant-type:jwt-bearer")
        #expect(first[path: "assertion", "valid"] as? Bool == true) // RS256 verified with the public key, aud and scope checked
        #expect(first[path: "assertion", "claims", "iss"] as? String == "pusher@pacenote-test.iam.gserviceaccount.com")
        #expect(first[path: "assertion", "header", "kid"] as? String == "kid-1")

        let sends = requests.filter { ($0["path"] as? String) == "/v1/projects/pacenote-test/messages:send" }
        #expect(sends.compactMap { $0[path: "headers", "authorization"] as? String }
            == ["Bearer access-1", "Bearer access-1", "Bearer access-1", "Bearer access-2"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data((sends[0]["body"] as? String ?? "").utf8)) as? [String: Any])
        #expect(body[path: "message", "token"] as? String == "tok-1")
        #expect(body[path: "message", "notification", "body"] as? String == "A Ana le gusta tu vídeo.")
        #expect(body[path: "message", "notification", "title"] as? String == "Pacenote")
        #expect(body[path: "message", "data", "videoId"] as? String == "xyz")
        #expect(body[path: "message", "android", "collapse_key"] as? String == "video-xyz")
        #expect(body[path: "message", "android", "notification", "notification_count"] as? Int == 5)
        #expect(Set(sends.compactMap { $0["connection"] as? Int }).count == 1)
    }

    @Test func errorsMapToOutcomes() throws {
        let unregistered: [String: Any] = ["error": ["code": 404, "status": "NOT_FOUND", "message": "Requested entity was not found.",
            "details": [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"]]]]
        let badToken: [String: Any] = ["error": ["code": 400, "status": "INVALID_ARGUMENT", "message": "The registration token is not a valid FCM registration token",
            "details": [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"]]]]
        let badPayload: [String: Any] = ["error": ["code": 400, "status": "INVALID_ARGUMENT", "message": "Invalid value at 'message.data'",
            "details": [["@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [["field": "message.data"]]]]]]
        let standIn = try StandIn(script: ["responses": [
            "gone": [["status": 404, "body": unregistered]],
            "bad": [["status": 400, "body": badToken]],
            "payload": [["status": 400, "body": badPayload]],
            "busy": [["status": 429, "headers": ["retry-after": "30"], "body": ["error": ["code": 429, "status": "RESOURCE_EXHAUSTED"]]]],
            "down": [["status": 503], ["status": 200]],
        ]])
        let fcm = try provider(standIn)
        #expect(fcm.send([message("gone"), message("bad"), message("payload"), message("busy"), message("down"), message("")])
            == [.tokenGone, .tokenGone, .failed(reason: "INVALID_ARGUMENT"), .retry(afterSeconds: 30, reason: "HTTP 429 RESOURCE_EXHAUSTED"),
                .retry(afterSeconds: nil, reason: "HTTP 503"), .tokenGone])
        #expect(fcm.send([message("down")]) == [.delivered])
    }

    @Test func aRefusedAccessTokenIsReplacedOnceAndTheMessageSent() throws {
        let standIn = try StandIn(script: ["rejectAccessTokens": ["access-1"]])
        let fcm = try provider(standIn)
        #expect(fcm.send([message("tok-1")]) == [.delivered])
        let requests = standIn.requests()
        #expect(requests.filter { $0["path"] as? String == "/token" }.count == 2)
        #expect(requests.compactMap { $0["status"] as? Int } == [200, 401, 200, 200])
    }

    @Test func aServiceAccountWithoutAFieldIsRefusedNamingIt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"project_id":"p","client_email":"e@example.com","token_uri":"https://oauth2.googleapis.com/token"}"#.utf8).write(to: file)
        #expect(throws: PushConfigurationError.invalidServiceAccount(path: file.path, field: "private_key")) {
            try FCMProvider(configuration: FCMConfiguration(serviceAccountFile: file.path))
        }
    }
}
