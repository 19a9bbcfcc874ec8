import Foundation
import TestSupport
import XCTest

/// Announcements through the real binary (API.md "Announcements and alerts"): admins create,
/// list and cancel them; one scheduled two seconds ahead reaches each reader's inbox as kind
/// `announcement` and their device (the APNs stand-in) in their language, after its time and
/// not before; one scheduled and then interrupted by SIGKILL is sent once after the restart;
/// everyone else is refused. Both databases (PACENOTE_TEST_DATABASE).
final class AnnouncementTests: XCTestCase {
    private static let teamID = "TEAM123456", keyID = "KEY1234567", topic = "com.example.vidwrc"
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

    private func start() throws {
        standIn = try StandIn(script: ["apnsTeamId": Self.teamID, "apnsKeyId": Self.keyID])
        server = try TestServer(extraArguments: ["--apns-key-file", standIn.apnsKeyFile, "--apns-key-id", Self.keyID, "--apns-team-id", Self.teamID,
                                                 "--apns-topic", Self.topic, "--apns-url", standIn.baseURL, "--push-ca-file", standIn.caFile])
        try server.start()
        client = HTTPClient(port: server.port)
    }

    private func makeAdmin() throws -> Account {
        let account = try client.signup()
        let role = server.runCLI(["user", "role", account.username, "admin"])
        XCTAssertEqual(role.status, 0, role.stderr)
        return account
    }

    static func deviceToken() -> String { (0..<32).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined() }

    static func isoTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static var body: [String: Any] { [
        "title": ["en": "Season opener", "es": "Arranca la temporada"],
        "body": ["en": "Monte-Carlo starts Thursday.", "es": "Montecarlo empieza el jueves."],
    ] }

    private func announcementNotifications(_ account: Account) throws -> [[String: Any]] {
        let page = assertSuccess(try client.request("GET", "/v1/notifications", token: account.token), 200)
        return pageItems(page).filter { ($0["kind"] as? String) == "announcement" }
    }

    private func pushes(to token: String) -> [[String: Any]] {
        standIn.requests().filter { ($0["path"] as? String) == "/3/device/\(token)" }
    }

    func testAdminsCreateListAndCancelAnnouncementsAndNobodyElseMay() throws {
        try start()
        let admin = try makeAdmin(), user = try client.signup()

        var later = Self.body
        later["sendAt"] = Self.isoTime(Date().addingTimeInterval(3_600))
        let created = assertSuccess(try client.request("POST", "/v1/announcements", json: later, token: admin.token), 201)
        let id = try XCTUnwrap(created["id"] as? String)
        XCTAssertEqual(child(created, "title")?["es"] as? String, "Arranca la temporada")
        XCTAssertEqual(created["audience"] as? String, "all")
        XCTAssertTrue(created["sentAt"] is NSNull, "not sent yet: \(created)")
        XCTAssertEqual(created["createdBy"] as? String, admin.id)
        assertTimestamp(created["sendAt"], near: Date().addingTimeInterval(3_600), tolerance: 5)

        var second = Self.body
        second["sendAt"] = Self.isoTime(Date().addingTimeInterval(7_200))
        let other = assertSuccess(try client.request("POST", "/v1/announcements", json: second, token: admin.token), 201)
        let list = assertSuccess(try client.request("GET", "/v1/announcements", token: admin.token), 200)
        XCTAssertEqual(ids(pageItems(list)).prefix(2), [other["id"] as? String ?? "", id], "newest first")

        assertSuccess(try client.request("DELETE", "/v1/announcements/\(id)", token: admin.token), 204)
        assertError(try client.request("DELETE", "/v1/announcements/\(id)", token: admin.token), 404, "not_found")
        XCTAssertFalse(ids(pageItems(assertSuccess(try client.request("GET", "/v1/announcements", token: admin.token), 200))).contains(id))

        // Sent at once (no sendAt): then it can no longer be cancelled.
        let now = assertSuccess(try client.request("POST", "/v1/announcements", json: Self.body, token: admin.token), 201)
        let nowID = try XCTUnwrap(now["id"] as? String)
        XCTAssertTrue(try waitUntil(timeout: 10) {
            let items = pageItems(assertSuccess(try self.client.request("GET", "/v1/announcements", token: admin.token), 200))
            return items.first { ($0["id"] as? String) == nowID }.map { $0["sentAt"] is String } ?? false
        }, "sentAt is set once it is sent")
        assertError(try client.request("DELETE", "/v1/announcements/\(nowID)", token: admin.token), 409, "conflict")

        // Bad input is 400 naming the field.
        let cases: [(String, [String: Any], String)] = [
            ("no title", ["body": ["en": "x"]], "title"),
            ("empty title", ["title": ["en": "  "], "body": ["en": "x"]], "title"),
            ("long body", ["title": ["en": "x"], "body": ["en": String(repeating: "a", count: 1_001)]], "body"),
            ("title not an object", ["title": "Hi", "body": ["en": "x"]], "title"),
            ("Spanish not a string", ["title": ["en": "x", "es": 3], "body": ["en": "x"]], "title"),
            ("English not a string", ["title": ["en": "x"], "body": ["en": ["x"]]], "body"),
            ("bad time", ["title": ["en": "x"], "body": ["en": "x"], "sendAt": "tomorrow"], "sendAt"),
            ("far ahead", ["title": ["en": "x"], "body": ["en": "x"], "sendAt": Self.isoTime(Date().addingTimeInterval(400 * 86_400))], "sendAt"),
            ("long past", ["title": ["en": "x"], "body": ["en": "x"], "sendAt": "2020-01-01T00:00:00.000Z"], "sendAt"),
            ("unknown rally", ["title": ["en": "x"], "body": ["en": "x"], "audience": ["rallyId": "nosuchrally"]], "audience"),
            ("bad audience", ["title": ["en": "x"], "body": ["en": "x"], "audience": 7], "audience"),
        ]
        for (name, body, field) in cases {
            assertError(try client.request("POST", "/v1/announcements", json: body, token: admin.token), 400, "validation_failed", field: field, name)
        }

        // Not an admin: refused everywhere, moderators included.
        let moderator = try client.signup()
        XCTAssertEqual(server.runCLI(["user", "role", moderator.username, "moderator"]).status, 0)
        for account in [user, moderator] {
            assertError(try client.request("POST", "/v1/announcements", json: Self.body, token: account.token), 403, "forbidden")
            assertError(try client.request("GET", "/v1/announcements", token: account.token), 403, "forbidden")
            assertError(try client.request("DELETE", "/v1/announcements/\(other["id"] as? String ?? "")", token: account.token), 403, "forbidden")
            assertError(try client.request("GET", "/v1/admin/stats", token: account.token), 403, "forbidden")
        }
        assertError(try client.request("GET", "/v1/announcements"), 401, "unauthorized")
    }

    func testAScheduledAnnouncementReachesEachInboxAndDeviceInTheReadersLanguage() throws {
        try start()
        let admin = try makeAdmin(), english = try client.signup(), spanish = try client.signup()
        assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["locale": "es"], token: spanish.token), 200)
        let englishDevice = Self.deviceToken(), spanishDevice = Self.deviceToken()
        assertSuccess(try client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": englishDevice, "locale": "en-GB"],
                                         token: english.token), 201)
        assertSuccess(try client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": spanishDevice], token: spanish.token), 201)

        var scheduled = Self.body
        let sendAt = Date().addingTimeInterval(2)
        scheduled["sendAt"] = Self.isoTime(sendAt)
        assertSuccess(try client.request("POST", "/v1/announcements", json: scheduled, token: admin.token), 201)
        XCTAssertTrue(try announcementNotifications(english).isEmpty, "nothing before its time")

        XCTAssertTrue(waitUntil(timeout: 10) { (try? self.announcementNotifications(spanish).count) == 1 && self.pushes(to: englishDevice).count == 1 },
                      "the inbox and the device have it within seconds of its time")
        let inSpanish = try XCTUnwrap(try announcementNotifications(spanish).first)
        XCTAssertEqual(child(inSpanish, "announcement")?["title"] as? String, "Arranca la temporada")
        XCTAssertEqual(child(inSpanish, "announcement")?["body"] as? String, "Montecarlo empieza el jueves.")
        let inEnglish = try XCTUnwrap(try announcementNotifications(english).first)
        XCTAssertEqual(child(inEnglish, "announcement")?["title"] as? String, "Season opener")
        XCTAssertTrue(inEnglish["activity"] is NSNull && inEnglish["video"] is NSNull, "\(inEnglish)")
        XCTAssertEqual(try announcementNotifications(admin).count, 1, "everyone, the admin included")

        XCTAssertTrue(waitUntil(timeout: 10) { self.pushes(to: spanishDevice).count == 1 })
        let alert = { (token: String) -> [String: Any]? in
            let body = self.pushes(to: token).first?["body"] as? String ?? ""
            return child(child((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any], "aps"), "alert")
        }
        XCTAssertEqual(alert(spanishDevice)?["title"] as? String, "Arranca la temporada", "the account's language for a device without one")
        XCTAssertEqual(alert(spanishDevice)?["body"] as? String, "Montecarlo empieza el jueves.")
        XCTAssertEqual(alert(englishDevice)?["body"] as? String, "Monte-Carlo starts Thursday.")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(pushes(to: englishDevice).count, 1, "pushed once")
    }

    /// A rally's audience: who posted, liked or commented on its videos, and nobody else.
    func testARallysAnnouncementReachesOnlyItsAudience() throws {
        try start()
        let admin = try makeAdmin(), poster = try client.signup(), liker = try client.signup(), commenter = try client.signup(), bystander = try client.signup()
        let rally = assertSuccess(try client.request("POST", "/v1/rallies", json: ["name": "Rally \(Fake.word())", "country": "Finland",
                                                                                   "startDate": UTCDate.today(-1), "endDate": UTCDate.today(1)], token: admin.token), 201)
        let rallyId = try XCTUnwrap(rally["id"] as? String)
        let video = assertSuccess(try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": "Ouninpohja", "rallyId": rallyId, "day": 1],
                                                     token: poster.token), 201)
        let videoId = try XCTUnwrap(video["id"] as? String)
        assertSuccess(try client.request("PUT", "/v1/videos/\(videoId)/like", token: liker.token), 200)
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/comments", json: ["content": "Flat out"], token: commenter.token), 201)
        var body = Self.body
        body["audience"] = ["rallyId": rallyId]
        let created = assertSuccess(try client.request("POST", "/v1/announcements", json: body, token: admin.token), 201)
        XCTAssertEqual(child(created, "audience")?["rallyId"] as? String, rallyId)
        XCTAssertTrue(waitUntil(timeout: 10) { [poster, liker, commenter].allSatisfy { (try? self.announcementNotifications($0).count) == 1 } })
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try announcementNotifications(bystander).count, 0)
        XCTAssertEqual(try announcementNotifications(admin).count, 0)
    }

    /// Scheduled, then the server killed before its time: after the restart it is sent, once.
    func testAnAnnouncementScheduledBeforeASIGKILLIsSentOnceAfterRestart() throws {
        try start()
        let admin = try makeAdmin()
        var readers: [Account] = []
        for _ in 0..<5 { readers.append(try client.signup()) }
        var scheduled = Self.body
        scheduled["sendAt"] = Self.isoTime(Date().addingTimeInterval(2))
        let created = assertSuccess(try client.request("POST", "/v1/announcements", json: scheduled, token: admin.token), 201)
        let id = try XCTUnwrap(created["id"] as? String)
        server.crash()
        Thread.sleep(forTimeInterval: 2.5)
        try server.start()
        client = HTTPClient(port: server.port)
        XCTAssertTrue(waitUntil(timeout: 10) { readers.allSatisfy { (try? self.announcementNotifications($0).count) == 1 } })
        Thread.sleep(forTimeInterval: 1)
        let rows = try server.withDatabase { try $0.int("SELECT COUNT(*) FROM notifications WHERE announcement_id = \(id)") }
        XCTAssertEqual(rows, readers.count + 1, "one inbox row per user, the admin included")
        for reader in readers { XCTAssertEqual(try announcementNotifications(reader).count, 1) }
    }

    /// `pacenote announce` queues one as the API does; a running server sends it.
    func testTheAnnounceCommandQueuesAnAnnouncementToEveryone() throws {
        try start()
        _ = try makeAdmin()
        let reader = try client.signup()
        let run = server.runCLI(["announce", "--title", "Service window", "--body", "Back at 10:00.", "--title-es", "Mantenimiento",
                                 "--body-es", "Volvemos a las 10:00."])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(waitUntil(timeout: 10) { (try? self.announcementNotifications(reader).count) == 1 }, run.stdout)
        XCTAssertEqual(child(try announcementNotifications(reader).first, "announcement")?["title"] as? String, "Service window")
        let bad = server.runCLI(["announce", "--title", "x", "--body", "y", "--send-at", "soon"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }
}
