import Foundation
import TestSupport
import XCTest

/// An announcement with two servers on one PostgreSQL, both running every outbox lane: both
/// notify workers see it come due at once, and it still reaches each inbox and each device
/// once (API.md "exactly once, also across restarts and with several servers"). Needs the
/// test cluster (`scripts/postgres`), like MultiNodeTests.
final class AnnouncementMultiNodeTests: XCTestCase {
    private var nodes: Nodes!
    private var standIn: StandIn?

    override func setUpWithError() throws {
        try super.setUpWithError()
        nodes = try Nodes()
    }

    override func tearDown() {
        nodes?.stopAll()
        if (testRun?.failureCount ?? 0) > 0 {
            for (index, server) in (nodes?.servers ?? []).enumerated() { print("--- server \(index) ---\n\(server.output.summary(limit: 40))") }
        }
        nodes = nil
        standIn = nil
        super.tearDown()
    }

    func testAnAnnouncementDueOnTwoServersIsSentOnce() throws {
        let standIn = try StandIn(script: ["apnsTeamId": PushArguments.teamID, "apnsKeyId": PushArguments.keyID])
        self.standIn = standIn
        let servers = try nodes.start([PushArguments.apns(standIn), PushArguments.apns(standIn)])
        let a = HTTPClient(port: servers[0].port), b = HTTPClient(port: servers[1].port)
        let admin = try nodes.admin(on: servers[0])
        let readers = try Nodes.signUp(40, ports: servers.map(\.port))
        var tokens: [String] = []
        for (index, reader) in readers.enumerated() {
            let token = AnnouncementTests.deviceToken()
            tokens.append(token)
            assertSuccess(try (index.isMultiple(of: 2) ? a : b).request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": token],
                                                                        token: reader.token), 201)
        }
        var body = AnnouncementTests.body
        body["sendAt"] = AnnouncementTests.isoTime(Date().addingTimeInterval(2))
        let created = assertSuccess(try b.request("POST", "/v1/announcements", json: body, token: admin.token), 201)
        let id = try XCTUnwrap(created["id"] as? String)

        let pushed = { Set(standIn.requests().compactMap { ($0["path"] as? String).map { String($0.dropFirst("/3/device/".count)) } }) }
        XCTAssertTrue(waitUntil(timeout: 15) { Set(tokens).isSubset(of: pushed()) }, "every device has it")
        Thread.sleep(forTimeInterval: 1.5)
        let rows = try servers[0].withDatabase { try $0.int("SELECT COUNT(*) FROM notifications WHERE announcement_id = \(id)") }
        XCTAssertEqual(rows, readers.count + 1, "one inbox row per user, the admin included")
        let perUser = try servers[0].withDatabase {
            try $0.int("SELECT COUNT(*) FROM (SELECT user_id FROM notifications WHERE announcement_id = \(id) GROUP BY user_id HAVING COUNT(*) > 1) twice")
        }
        XCTAssertEqual(perUser, 0)
        let requests = standIn.requests().filter { ($0["path"] as? String)?.hasPrefix("/3/device/") == true }
        XCTAssertEqual(requests.count, tokens.count, "each device pushed once")
        let page = assertSuccess(try a.request("GET", "/v1/announcements", token: admin.token), 200)
        XCTAssertTrue(pageItems(page).first?["sentAt"] is String)
    }
}
