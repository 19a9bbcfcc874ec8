import Foundation
import TestSupport
import XCTest

/// Notifications pushed through the real binary to a local APNs/FCM/webhook stand-in
/// (HTTP/2 over TLS with a CA made for the run): the request a device's service receives, a
/// token reported gone, a retry after a 503, a crash in the middle of a broadcast, and
/// `pacenote push test`.
final class PushDeliveryTests: XCTestCase {
    private static let teamID = "TEAM123456", keyID = "KEY1234567", topic = "com.example.vidwrc"
    private var standIn: StandIn!
    private var server: TestServer!
    private var client: HTTPClient!

    override func tearDown() {
        client?.close()
        server?.stop()
        server = nil
        standIn = nil
        super.tearDown()
    }

    /// The stand-in answering per `responses` (device token or delivery id -> answers), and a
    /// server pushing to it.
    private func start(responses: [String: [[String: Any]]] = [:], answerDelay: Double = 0, extra: [String] = []) throws {
        standIn = try StandIn(script: ["apnsTeamId": Self.teamID, "apnsKeyId": Self.keyID, "responses": responses,
                                       "webhookSecret": "relay-secret", "answerDelay": answerDelay])
        server = try TestServer(extraArguments: pushArguments() + extra)
        try server.start()
        client = HTTPClient(port: server.port)
    }

    private func pushArguments() -> [String] {
        ["--apns-key-file", standIn.apnsKeyFile, "--apns-key-id", Self.keyID, "--apns-team-id", Self.teamID,
         "--apns-topic", Self.topic, "--apns-url", standIn.baseURL, "--push-ca-file", standIn.caFile]
    }

    private func register(_ account: Account, token: String, locale: String? = nil) throws {
        var body: [String: Any] = ["platform": "ios", "deviceToken": token]
        if let locale { body["locale"] = locale }
        assertSuccess(try client.request("POST", "/v1/installations", json: body, token: account.token), 201)
    }

    private func pushes(to token: String) -> [[String: Any]] {
        standIn.requests().filter { ($0["path"] as? String) == "/3/device/\(token)" }
    }

    /// Waits until `count` pushes to `token` arrived (or 15 s passed) and answers them.
    private func waitForPushes(to token: String, count: Int = 1) -> [[String: Any]] {
        _ = waitUntil(timeout: 15) { pushes(to: token).count >= count }
        return pushes(to: token)
    }

    private static func deviceToken() -> String { (0..<32).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined() }

    private func rallyAndVideo(_ owner: Account) throws -> String {
        let admin = try makeAdmin()
        let rally = try client.request("POST", "/v1/rallies", json: ["name": "Rally \(Fake.word())", "country": "Finland",
                                                                     "startDate": UTCDate.today(-1), "endDate": UTCDate.today(1)], token: admin.token)
        let rallyId = rally.object?["id"] as? String ?? ""
        let video = assertSuccess(try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": "Ouninpohja",
                                                                                  "rallyId": rallyId, "day": 1], token: owner.token), 201)
        return video["id"] as? String ?? ""
    }

    private func makeAdmin() throws -> Account {
        let account = try client.signup()
        let role = server.runCLI(["user", "role", account.username, "admin"])
        XCTAssertEqual(role.status, 0, role.stderr)
        return account
    }

    /// A device registered without a locale gets the account's language (API.md User(me) `locale`).
    func testADeviceWithoutALocaleIsPushedInTheAccountsLanguage() throws {
        try start()
        let owner = try client.signup(), fan = try client.signup()
        assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["locale": "es"], token: owner.token), 200)
        let token = Self.deviceToken()
        try register(owner, token: token)
        let videoId = try rallyAndVideo(owner)
        assertSuccess(try client.request("PUT", "/v1/videos/\(videoId)/like", token: fan.token), 200)
        let push = try XCTUnwrap(waitForPushes(to: token).first, "a push within 15 s")
        let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((push["body"] as? String ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(child(child(payload, "aps"), "alert")?["body"] as? String, "A \(fan.user["displayName"] as? String ?? "") le gusta tu vídeo.")
    }

    func testALikeIsPushedToTheOwnersDeviceInTheirLanguage() throws {
        try start()
        let owner = try client.signup(), fan = try client.signup()
        let token = Self.deviceToken()
        try register(owner, token: token, locale: "es-ES")
        let videoId = try rallyAndVideo(owner)
        assertSuccess(try client.request("PUT", "/v1/videos/\(videoId)/like", token: fan.token), 200)

        let received = waitForPushes(to: token)
        XCTAssertEqual(received.count, 1, "one push for one like")
        let push = try XCTUnwrap(received.first)
        XCTAssertEqual(child(child(push, "jwt"), "header")?["kid"] as? String, Self.keyID)
        XCTAssertEqual((push["jwt"] as? [String: Any])?["valid"] as? Bool, true, "the provider token verifies with the key's public half")
        let headers = try XCTUnwrap(push["headers"] as? [String: Any])
        XCTAssertEqual(headers["apns-topic"] as? String, Self.topic)
        XCTAssertEqual(headers["apns-push-type"] as? String, "alert")
        XCTAssertEqual(headers["apns-collapse-id"] as? String, "like-\(videoId)", "repeated likes of a video replace each other")
        XCTAssertNotNil((headers["apns-id"] as? String).flatMap(UUID.init(uuidString:)), "apns-id is a UUID")
        let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((push["body"] as? String ?? "").utf8)) as? [String: Any])
        let displayName = fan.user["displayName"] as? String ?? ""
        XCTAssertEqual(child(child(payload, "aps"), "alert")?["body"] as? String, "A \(displayName) le gusta tu vídeo.")
        XCTAssertEqual(jsonInt(child(payload, "aps")?["badge"]), 1, "the unread count travels as the badge")
        XCTAssertEqual(payload["videoId"] as? String, videoId)
        XCTAssertEqual(payload["kind"] as? String, "like")

        // Like, unlike and like again within a minute: the inbox has the like, the phone one push.
        assertSuccess(try client.request("DELETE", "/v1/videos/\(videoId)/like", token: fan.token), 200)
        assertSuccess(try client.request("PUT", "/v1/videos/\(videoId)/like", token: fan.token), 200)
        let follower = try client.signup()
        assertSuccess(try client.request("PUT", "/v1/users/\(owner.id)/follow", token: follower.token), 200)
        let all = waitForPushes(to: token, count: 2)
        XCTAssertEqual(all.count, 2, "the follow is pushed; the repeated like is not")
        let second = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((all.last?["body"] as? String ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(second["kind"] as? String, "follow")
        XCTAssertEqual(jsonInt(child(second, "aps")?["badge"]), 2)
        XCTAssertEqual(try firstPage(owner).filter { ($0["kind"] as? String) == "like" }.count, 1)
    }

    private func firstPage(_ account: Account) throws -> [[String: Any]] {
        (try client.request("GET", "/v1/notifications", token: account.token).object?["items"] as? [[String: Any]]) ?? []
    }

    /// A device token registered by another account moves as a new installation: the earlier
    /// account's pushes stop reaching it, and the new account's arrive in its own language, not
    /// in the locale the earlier account had given the device.
    func testAMovedDeviceGetsOnlyTheNewAccountsPushesInItsLanguage() throws {
        try start()
        let alice = try client.signup(), bob = try client.signup()
        let aliceFan = try client.signup(), bobFan = try client.signup()
        let token = Self.deviceToken()
        try register(alice, token: token, locale: "es-ES")
        try register(bob, token: token)
        assertSuccess(try client.request("PUT", "/v1/users/\(alice.id)/follow", token: aliceFan.token), 200)
        assertSuccess(try client.request("PUT", "/v1/users/\(bob.id)/follow", token: bobFan.token), 200)

        XCTAssertEqual(waitForPushes(to: token).count, 1)
        // alice's follow was queued first; had it been pushed to the device it would be there by now.
        _ = waitUntil(timeout: 3) { self.pushes(to: token).count > 1 }
        let bodies = pushes(to: token).map { push -> String? in
            let payload = try? JSONSerialization.jsonObject(with: Data((push["body"] as? String ?? "").utf8)) as? [String: Any]
            return child(child(payload, "aps"), "alert")?["body"] as? String
        }
        XCTAssertEqual(bodies, ["\(bobFan.user["displayName"] as? String ?? "") started following you."],
                       "only bob's push, in English (alice's es-ES went with her installation)")
    }

    func testAGoneTokenRemovesTheInstallationAndA503IsRetried() throws {
        let gone = Self.deviceToken(), flaky = Self.deviceToken()
        try start(responses: [
            gone: [["status": 410, "body": ["reason": "Unregistered"]]],
            flaky: [["status": 503, "headers": ["retry-after": "1"], "body": ["reason": "ServiceUnavailable"]], ["status": 200]],
        ])
        let lost = try client.signup(), busy = try client.signup(), fan = try client.signup()
        try register(lost, token: gone)
        try register(busy, token: flaky)
        assertSuccess(try client.request("PUT", "/v1/users/\(lost.id)/follow", token: fan.token), 200)
        assertSuccess(try client.request("PUT", "/v1/users/\(busy.id)/follow", token: fan.token), 200)

        XCTAssertEqual(waitForPushes(to: gone).count, 1)
        let retried = waitForPushes(to: flaky, count: 2)
        XCTAssertEqual(retried.map { $0["status"] as? Int }, [503, 200], "503, then delivered after Retry-After")
        XCTAssertTrue(server.stderrLines.contains { $0.contains("delivery to be retried") && $0.contains("HTTP 503 ServiceUnavailable") },
                      "the operator's log says why a push is retried:\n\(server.stderrLines.suffix(10).joined(separator: "\n"))")
        XCTAssertFalse(server.stderrLines.contains { $0.contains(flaky) }, "no device token in the log")
        let ids = retried.compactMap { ($0["headers"] as? [String: Any])?["apns-id"] as? String }
        XCTAssertEqual(Set(ids).count, 1, "the retry carries the same apns-id")

        // The 410 removed the device: registering its token again is a new installation.
        XCTAssertTrue(waitUntil(timeout: 10) {
            (try? self.client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": gone], token: lost.token).status) == 201
        }, "the installation of a token APNs reported gone was deleted")
        // Nothing more is sent to either after the outbox settles.
        _ = waitUntil(timeout: 5) { self.server.runCLI(["outbox", "list"]).stdout.contains("\tleased\t") == false }
        XCTAssertEqual(pushes(to: flaky).count, 2, "delivered once: no push after the 200")
    }

    func testABroadcastInterruptedBySIGKILLIsDeliveredAfterRestartAndMarkedOnce() throws {
        // Answers held 2 s keep the deliveries in flight when the process dies; a 3 s attempt
        // deadline makes their leases (three deadlines) run out 9 s later.
        try start(answerDelay: 2, extra: ["--push-timeout", "3s"])
        let uploader = try client.signup()
        var tokens: [String] = []
        for _ in 0..<40 {
            let fan = try client.signup()
            let token = Self.deviceToken()
            try register(fan, token: token)
            tokens.append(token)
        }
        _ = try rallyAndVideo(uploader)
        // Kill it as soon as the first pushes arrive: the broadcast is in the middle.
        XCTAssertTrue(waitUntil(timeout: 15) { !self.standIn.requests().isEmpty })
        server.crash()
        try server.start()
        client = HTTPClient(port: server.port)

        XCTAssertTrue(waitUntil(timeout: 40) { Set(tokens).isSubset(of: Set(self.standIn.requests().compactMap { ($0["path"] as? String)?.replacingOccurrences(of: "/3/device/", with: "") })) },
                      "every device got the new video after the restart")
        // Every delivery is marked done exactly once: none pending, leased or dead (the ones in
        // flight at the crash come back when their lease runs out, 9 s on).
        XCTAssertTrue(waitUntil(timeout: 30) {
            let list = self.server.runCLI(["outbox", "list", "--limit", "1000"]).stdout
            let deliveries = list.split(separator: "\n").filter { $0.contains("push.device") }
            return deliveries.count == tokens.count && deliveries.allSatisfy { $0.contains("\tdone\t") }
        }, server.runCLI(["outbox", "list", "--limit", "1000"]).stdout)
        // The crash was in the middle: some pushes went out twice (at-least-once), each time with
        // the same apns-id, so the service shows each once.
        XCTAssertGreaterThan(standIn.requests().count, tokens.count, "pushes in flight at the crash were sent again")
        let byToken = Dictionary(grouping: standIn.requests(), by: { $0["path"] as? String ?? "" })
        for (_, requests) in byToken {
            XCTAssertEqual(Set(requests.compactMap { ($0["headers"] as? [String: Any])?["apns-id"] as? String }).count, 1)
        }
    }

    /// Devices brought over from Parse's `_Installation` are pushed to like new ones.
    func testImportedInstallationsArePushedTo() throws {
        standIn = try StandIn(script: ["apnsTeamId": Self.teamID, "apnsKeyId": Self.keyID])
        server = try TestServer(extraArguments: pushArguments())
        let token = Self.deviceToken()
        var export = ParseExport()
        export.users = [ParseExport.user("ParseUser01", "parse_owner")]
        export.installations = [["objectId": "ParseInst01", "deviceType": "ios", "deviceToken": token, "localeIdentifier": "en-GB",
                                 "user": ParseExport.pointer("_User", "ParseUser01"),
                                 "createdAt": "2014-01-02T03:04:05.678Z", "updatedAt": "2014-01-02T03:04:05.678Z"]]
        let folder = try export.write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let imported = server.runCLI(["import-parse", folder.path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        try server.start()
        client = HTTPClient(port: server.port)
        let fan = try client.signup()
        assertSuccess(try client.request("PUT", "/v1/users/ParseUser01/follow", token: fan.token), 200)
        let received = waitForPushes(to: token)
        XCTAssertEqual(received.count, 1)
        let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((received.first?["body"] as? String ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(child(child(payload, "aps"), "alert")?["body"] as? String, "\(fan.user["displayName"] as? String ?? "") started following you.")
    }

    func testWebhookAndPushTestCommand() throws {
        standIn = try StandIn(script: ["apnsTeamId": Self.teamID, "apnsKeyId": Self.keyID, "webhookSecret": "relay-secret"])
        server = try TestServer(extraArguments: pushArguments() + ["--webhook-url", "\(standIn.baseURL)/relay", "--webhook-secret", "relay-secret"])
        try server.start()
        client = HTTPClient(port: server.port)
        let owner = try client.signup(), fan = try client.signup()
        let token = Self.deviceToken()
        try register(owner, token: token)
        assertSuccess(try client.request("PUT", "/v1/users/\(owner.id)/follow", token: fan.token), 200)
        XCTAssertTrue(waitUntil(timeout: 15) { self.standIn.requests().contains { ($0["path"] as? String) == "/relay" } })
        let relayed = try XCTUnwrap(standIn.requests().first { ($0["path"] as? String) == "/relay" })
        XCTAssertEqual(relayed["signatureValid"] as? Bool, true, "X-Pacenote-Signature verifies with the shared secret")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((relayed["body"] as? String ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(body["kind"] as? String, "follow")
        XCTAssertEqual(body["recipientId"] as? String, owner.id)
        XCTAssertEqual(body["actorId"] as? String, fan.id)

        let test = server.runCLI(["push", "test", "--user", owner.username] + pushArguments())
        XCTAssertEqual(test.status, 0, test.stderr)
        XCTAssertTrue(test.stdout.contains("(ios): apns: delivered"), test.stdout)
        let missing = server.runCLI(["push", "test", "--user", "nobody_here_at_all"] + pushArguments())
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no such user"), missing.stderr)
    }
}
