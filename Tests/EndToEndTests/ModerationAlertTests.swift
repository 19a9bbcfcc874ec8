import Foundation
import TestSupport
import XCTest

/// The moderation alert webhook through the real binary (`serve --moderation-webhook-url`):
/// a video's first flag (and not its second), an automatic hide and a ban each reach the
/// webhook stand-in within 5 s, signed like the push webhook; an alert answered 500 is sent
/// again, with the same delivery id and bytes. Both databases.
final class ModerationAlertTests: XCTestCase {
    private var standIn: StandIn!
    private var server: TestServer!
    private var client: HTTPClient!

    override func tearDown() {
        if (testRun?.failureCount ?? 0) > 0, let server { print("--- server ---\n\(server.output.summary(limit: 40))") }
        client?.close()
        server?.stop()
        server = nil
        standIn = nil
        super.tearDown()
    }

    private func start(responses: [String: [[String: Any]]] = [:]) throws {
        standIn = try StandIn(script: ["webhookSecret": "mod-secret", "responses": responses])
        server = try TestServer(extraArguments: ["--moderation-webhook-url", "\(standIn.baseURL)/moderation", "--moderation-webhook-secret", "mod-secret",
                                                 "--push-ca-file", standIn.caFile, "--auto-hide-flags", "2"])
        try server.start()
        client = HTTPClient(port: server.port)
    }

    private func alerts() -> [(request: [String: Any], body: [String: Any])] {
        standIn.requests().filter { ($0["path"] as? String) == "/moderation" }.map { request in
            (request, ((try? JSONSerialization.jsonObject(with: Data((request["body"] as? String ?? "").utf8))) as? [String: Any]) ?? [:])
        }
    }

    private func video(owner: Account) throws -> String {
        let admin = try client.signup()
        XCTAssertEqual(server.runCLI(["user", "role", admin.username, "admin"]).status, 0)
        let rally = assertSuccess(try client.request("POST", "/v1/rallies", json: ["name": "Rally \(Fake.word())", "country": "Finland",
                                                                                   "startDate": UTCDate.today(-1), "endDate": UTCDate.today(1)], token: admin.token), 201)
        let video = assertSuccess(try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": "Ouninpohja",
                                                                                  "rallyId": rally["id"] as? String ?? "", "day": 1], token: owner.token), 201)
        return try XCTUnwrap(video["id"] as? String)
    }

    func testAFirstFlagAnAutomaticHideAndABanAreAlertedSignedWithinFiveSeconds() throws {
        try start()
        let owner = try client.signup(), first = try client.signup(), second = try client.signup()
        let videoId = try video(owner: owner)
        let flagged = Date()
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/flags", json: ["reason": "spam"], token: first.token), 201)
        XCTAssertTrue(waitUntil(timeout: 5) { !self.alerts().isEmpty }, "the first flag is alerted within 5 s")
        XCTAssertLessThan(Date().timeIntervalSince(flagged), 5)
        let flag = try XCTUnwrap(alerts().first)
        XCTAssertEqual(flag.request["signatureValid"] as? Bool, true, "signed with the moderation webhook's secret")
        XCTAssertEqual(flag.body["event"] as? String, "flag")
        XCTAssertEqual(child(flag.body, "video")?["id"] as? String, videoId)
        XCTAssertEqual(child(flag.body, "flag")?["userId"] as? String, first.id)
        XCTAssertEqual(child(flag.body, "flag")?["reason"] as? String, "spam")
        XCTAssertEqual((flag.request["headers"] as? [String: Any])?["x-pacenote-delivery"] as? String, flag.body["id"] as? String)

        // The second flag hides it (--auto-hide-flags 2): that is alerted, the flag itself is not.
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/flags", json: ["reason": "spam"], token: second.token), 201)
        XCTAssertTrue(waitUntil(timeout: 5) { self.alerts().contains { $0.body["event"] as? String == "auto_hide" } })
        let hide = try XCTUnwrap(alerts().first { $0.body["event"] as? String == "auto_hide" })
        XCTAssertEqual(child(hide.body, "video")?["flagsCount"] as? Int, 2)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(alerts().filter { $0.body["event"] as? String == "flag" }.count, 1, "only a video's first flag is alerted")

        let moderator = try client.signup()
        XCTAssertEqual(server.runCLI(["user", "role", moderator.username, "moderator"]).status, 0)
        let staff = try client.login(moderator.username, moderator.password)
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/ban", json: ["reason": "spam videos"], token: staff.token), 200)
        XCTAssertTrue(waitUntil(timeout: 5) { self.alerts().contains { $0.body["event"] as? String == "ban" } })
        let ban = try XCTUnwrap(alerts().first { $0.body["event"] as? String == "ban" })
        XCTAssertEqual(child(ban.body, "user")?["id"] as? String, owner.id)
        XCTAssertEqual(ban.body["reason"] as? String, "spam videos")
        XCTAssertTrue(alerts().allSatisfy { $0.request["signatureValid"] as? Bool == true })
    }

    func testAnAlertAnswered500IsSentAgainWithTheSameIdAndBytes() throws {
        try start(responses: ["/moderation": [["status": 500], ["status": 200]]])
        let owner = try client.signup(), flagger = try client.signup()
        let videoId = try video(owner: owner)
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/flags", token: flagger.token), 201)
        XCTAssertTrue(waitUntil(timeout: 10) { self.alerts().count >= 2 }, "retried after the 500")
        let (first, again) = (alerts()[0], alerts()[1])
        XCTAssertEqual(first.request["status"] as? Int ?? 500, 500)
        XCTAssertEqual(first.body["id"] as? String, again.body["id"] as? String)
        XCTAssertEqual(first.request["body"] as? String, again.request["body"] as? String, "the same bytes, signed again")
        XCTAssertEqual(again.request["signatureValid"] as? Bool, true)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(alerts().count, 2, "delivered: not sent a third time")
        let done = try server.withDatabase { try $0.int("SELECT COUNT(*) FROM outbox WHERE kind = 'push.moderation' AND state = 'done'") }
        XCTAssertEqual(done, 1)
    }

    /// Without the flag, nothing is queued for nobody.
    func testNoWebhookQueuesNoAlerts() throws {
        server = try TestServer()
        try server.start()
        client = HTTPClient(port: server.port)
        let owner = try client.signup(), flagger = try client.signup()
        let videoId = try video(owner: owner)
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/flags", token: flagger.token), 201)
        XCTAssertEqual(try server.withDatabase { try $0.int("SELECT COUNT(*) FROM outbox WHERE kind = 'push.moderation'") }, 0)
    }
}
