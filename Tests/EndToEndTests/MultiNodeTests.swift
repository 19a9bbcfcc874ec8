import Foundation
import TestSupport
import XCTest

/// Two `pacenote serve` processes on one PostgreSQL (issue 13), as behind a load balancer:
/// what one writes the other reads, counters stay exact when both take writes at once, a session
/// ended on one is refused by the other within a second, outbox workers on both deliver every
/// notification once, and one dying leaves the other serving and its leased work to the other.
/// Runs when PACENOTE_TEST_POSTGRES_URL is set (`scripts/test`); fails in CI without it.
final class MultiNodeTests: NodesTestCase {
    private var standIn: StandIn?

    override func tearDown() {
        standIn = nil
        super.tearDown()
    }

    func testWritesThroughOneServerAreReadThroughTheOther() throws {
        let servers = try nodes.start([[], []])
        let a = HTTPClient(port: servers[0].port), b = HTTPClient(port: servers[1].port)

        let owner = try a.signup(), fan = try b.signup()
        XCTAssertEqual(try b.me(owner.token).status, 200, "a session made on A works on B")
        assertSuccess(try b.request("PATCH", "/v1/users/me", json: ["displayName": "Tänak fan"], token: fan.token), 200)
        XCTAssertEqual(try a.request("GET", "/v1/users/\(fan.id)", token: owner.token).object?["displayName"] as? String, "Tänak fan")

        let admin = try nodes.admin(on: servers[1])
        let rallyId = try Nodes.rally(a, admin: admin)
        var videos: [String] = []
        for index in 0..<25 {
            videos.append(try Nodes.video(index.isMultiple(of: 2) ? a : b, owner: owner, rallyId: rallyId, title: "Ouninpohja \(index)"))
        }
        assertSuccess(try b.request("GET", "/v1/videos/\(videos[0])", token: fan.token), 200, "a video posted on A, read on B")

        // A cursor made by one server is good on the other: they share --cursor-secret.
        let first = assertSuccess(try a.request("GET", "/v1/users/\(owner.id)/videos?limit=20", token: fan.token), 200)
        let cursor = try XCTUnwrap(first["nextCursor"] as? String)
        let second = assertSuccess(try b.request("GET", "/v1/users/\(owner.id)/videos?limit=20&cursor=\(queryValue(cursor))", token: fan.token), 200)
        XCTAssertEqual(Set(ids(pageItems(first)) + ids(pageItems(second))), Set(videos), "the two pages, one from each server, hold every video once")
        XCTAssertEqual(pageItems(first).count + pageItems(second).count, 25)

        // A comment through B is in A's list; a follow through A fills the follower's feed read on B.
        assertSuccess(try b.request("POST", "/v1/videos/\(videos[3])/comments", json: ["content": "Flat out"], token: fan.token), 201)
        let comments = assertSuccess(try a.request("GET", "/v1/videos/\(videos[3])/comments", token: owner.token), 200)
        XCTAssertEqual(pageItems(comments).compactMap { $0["content"] as? String }, ["Flat out"])
        assertSuccess(try a.request("PUT", "/v1/users/\(owner.id)/follow", token: fan.token), 200)
        let home = assertSuccess(try b.request("GET", "/v1/feed/home?limit=50", token: fan.token), 200)
        XCTAssertEqual(Set(ids(pageItems(home))), Set(videos), "the follow copied the owner's videos into the follower's home")
    }

    /// 40 likes of one video at the same moment, half through each server, then 40 unlikes.
    /// Pictures live in the database: one uploaded through A is served by B, and one removed
    /// through B is gone from A.
    func testAPictureUploadedThroughOneServerIsServedByTheOther() throws {
        let servers = try nodes.start([[], []])
        let a = HTTPClient(port: servers[0].port), b = HTTPClient(port: servers[1].port)
        let owner = try a.signup()
        let uploaded = assertSuccess(try a.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"],
                                                   body: try imageFixture("landscape.jpg"), token: owner.token), 200)
        let large = try XCTUnwrap(uploaded["avatarUrl"] as? String), small = try XCTUnwrap(uploaded["avatarThumbnailUrl"] as? String)
        let served = try b.request("GET", large)
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.headers["content-type"], "image/jpeg")
        XCTAssertEqual(try b.request("GET", "/v1/users/\(owner.id)", token: owner.token).object?["avatarUrl"] as? String, large)
        assertSuccess(try b.request("DELETE", "/v1/users/me/avatar", token: owner.token), 200)
        assertError(try a.request("GET", small), 404, "not_found", "removed through B, gone from A")
    }

    func testConcurrentLikesSpreadOverBothServersKeepTheCounterExact() throws {
        let servers = try nodes.start([[], []])
        let ports = servers.map(\.port)
        let a = HTTPClient(port: ports[0])
        let owner = try a.signup()
        let videoId = try Nodes.video(a, owner: owner, rallyId: try Nodes.rally(a, admin: try nodes.admin(on: servers[0])))
        let fans = try Nodes.signUp(40, ports: ports)
        let tokens = fans.map(\.token)

        let likes = runConcurrently(ports: ports, 40) { index, client in
            "\((try? client.request("PUT", "/v1/videos/\(videoId)/like", token: tokens[index]).status) ?? -1)"
        }
        XCTAssertEqual(likes, Array(repeating: "200", count: 40), "every like answers 200, on either server")
        for server in servers {
            XCTAssertEqual(jsonInt(try HTTPClient(port: server.port).request("GET", "/v1/videos/\(videoId)", token: owner.token).object?["likesCount"]), 40)
        }
        XCTAssertEqual(try StoredCounters.stored(servers[0], "videos", "likes_count", id: videoId), 40)
        XCTAssertEqual(try StoredCounters.activities(servers[0], type: 1, videoId: videoId), 40)

        let unlikes = runConcurrently(ports: ports.reversed(), 40) { index, client in
            "\((try? client.request("DELETE", "/v1/videos/\(videoId)/like", token: tokens[index]).status) ?? -1)"
        }
        XCTAssertEqual(unlikes, Array(repeating: "200", count: 40))
        for server in servers {
            XCTAssertEqual(jsonInt(try HTTPClient(port: server.port).request("GET", "/v1/videos/\(videoId)", token: owner.token).object?["likesCount"]), 0)
        }
        XCTAssertEqual(try StoredCounters.activities(servers[0], type: 1, videoId: videoId), 0)
        StoredCounters.assertAllExact(servers[0])
    }

    /// Logout, a password change and a ban through A: B refuses the ended session within a second,
    /// although it had just served (and cached) it.
    func testASessionEndedOnOneServerIsRefusedByTheOtherWithinASecond() throws {
        let servers = try nodes.start([[], []])
        let a = HTTPClient(port: servers[0].port), b = HTTPClient(port: servers[1].port)
        let admin = try nodes.admin(on: servers[0])

        let leaver = try a.signup()
        try expectRefusedOnB(leaver.token, a: a, b: b, "logout on A") {
            assertSuccess(try a.request("DELETE", "/v1/sessions/current", token: leaver.token), 204)
        }

        let changer = try a.signup()
        let phone = try b.login(changer.username, changer.password).token
        try expectRefusedOnB(phone, a: a, b: b, "password change on A") {
            assertSuccess(try a.request("PUT", "/v1/users/me/password", json: ["currentPassword": changer.password, "newPassword": Fake.password()],
                                        token: changer.token), 204)
        }
        XCTAssertEqual(try b.me(changer.token).status, 200, "the session that changed the password stays")

        let spammer = try a.signup()
        try expectRefusedOnB(spammer.token, a: a, b: b, "ban on A") {
            assertSuccess(try a.request("POST", "/v1/moderation/users/\(spammer.id)/ban", json: ["reason": "spam"], token: admin.token), 200)
        }
    }

    /// B serves `token` (so has it cached), `end` ends it through A, then B is asked every 20 ms:
    /// the first refusal must come less than a second after A answered.
    private func expectRefusedOnB(_ token: String, a: HTTPClient, b: HTTPClient, _ what: String, end: () throws -> Void) throws {
        XCTAssertEqual(try b.me(token).status, 200, "\(what): B serves the session first")
        XCTAssertEqual(try b.me(token).status, 200, "\(what): again, from its cache")
        try end()
        let ended = Date()
        XCTAssertEqual(try a.me(token).status, 401, "\(what): A refuses it at once")
        var refusedAfter: TimeInterval?
        _ = try waitUntil(timeout: 3, interval: 0.02) {
            let asked = Date()
            if try b.me(token).status == 401 { refusedAfter = asked.timeIntervalSince(ended) }
            return refusedAfter != nil
        }
        let after = try XCTUnwrap(refusedAfter, "\(what): B still served the session 3 s later")
        XCTAssertLessThan(after, 1.0, "\(what): B refused it \(after) s after A ended it")
    }

    /// Outbox workers on both servers: 1,000 pushes (5 new videos to 20 people with 10 devices
    /// each), every one received by the stand-in, and again only after an attempt a server
    /// counted as a retry (a local run of the whole suite once had 203 pushes sent twice
    /// after a failed attempt: at-least-once delivery doing its job).
    func testWorkersOnBothServersDeliverAThousandNotificationsOnceEach() throws {
        let standIn = try StandIn(script: ["apnsTeamId": PushArguments.teamID, "apnsKeyId": PushArguments.keyID, "answerDelay": 0.02])
        self.standIn = standIn
        let servers = try nodes.start([PushArguments.apns(standIn), PushArguments.apns(standIn)])
        let ports = servers.map(\.port)
        let a = HTTPClient(port: ports[0])
        let admin = try nodes.admin(on: servers[0])
        let uploader = try a.signup()
        // The admin hears of new videos too but has no device; only the 20 fans' devices are pushed.
        let fans = try Nodes.signUp(20, ports: ports)
        var devices: [String] = []
        for (index, fan) in fans.enumerated() {
            let client = HTTPClient(port: ports[index % 2])
            for _ in 0..<10 {
                let token = PushArguments.deviceToken()
                assertSuccess(try client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": token], token: fan.token), 201)
                devices.append(token)
            }
        }
        let rallyId = try Nodes.rally(a, admin: admin)
        for index in 0..<5 {
            _ = try Nodes.video(HTTPClient(port: ports[index % 2]), owner: uploader, rallyId: rallyId)
        }

        XCTAssertTrue(waitUntil(timeout: 90, interval: 0.2) { standIn.requests().count >= 1_000 }, "1,000 pushes within 90 s: \(standIn.requests().count)")
        let outbox = { try servers[0].withDatabase { db in
            try db.rows("SELECT state, COUNT(*), CAST(SUM(attempts) AS BIGINT) FROM outbox WHERE kind = 'push.device' GROUP BY state")
        } }
        XCTAssertTrue(waitUntil(timeout: 30) { (try? outbox())?.first?.prefix(2) == ["done", "1000"] }, "every delivery job done: \((try? outbox()) ?? [])")
        // Anything sent twice has arrived once both outboxes are idle: no job waiting or running,
        // every request the stand-in logged answered and counted by a server, nothing moving.
        XCTAssertTrue(try waitForIdleOutboxes(servers, standIn), "the outboxes settle")
        let received = standIn.requests()
        // Delivery is at least once: an attempt that failed on its way (a dropped connection, a
        // timeout on a loaded machine) is made again, and the stand-in may have logged the
        // first. So a copy beyond the 1,000 is allowed only for an attempt a server counted as
        // a retry, and the job's attempts say the same; with no retry, exactly 1,000.
        let retried = Int(try servers.map { try Nodes.metric($0, #"pacenote_push_deliveries_total{provider="apns",result="retry"}"#) }.reduce(0, +))
        XCTAssertGreaterThanOrEqual(received.count, 1_000, "none lost")
        XCTAssertLessThanOrEqual(received.count - 1_000, retried, "none sent twice but after a counted retry: \(received.count) pushes, \(retried) retries")
        XCTAssertEqual(try outbox(), [["done", "1000", String(1_000 + retried)]], "every job done, at its first attempt but for the retries")
        let perDevice = Dictionary(grouping: received) { ($0["path"] as? String ?? "").replacingOccurrences(of: "/3/device/", with: "") }
        XCTAssertEqual(Set(perDevice.keys), Set(devices))
        let messagesPerDevice = perDevice.values.map { Set($0.compactMap { ($0["headers"] as? [String: Any])?["apns-id"] as? String }).count }
        XCTAssertEqual(Set(messagesPerDevice), [5], "each device got each of the five videos")
        let ids = received.compactMap { ($0["headers"] as? [String: Any])?["apns-id"] as? String }
        XCTAssertEqual(Set(ids).count, 1_000, "1,000 distinct messages, a retry keeping its apns-id")
        let delivered = try servers.map { try Nodes.metric($0, #"pacenote_push_deliveries_total{provider="apns",result="delivered"}"#) }
        // How the two servers split the work depends on whose worker polled first (SharedOutboxTests
        // checks that both take part, with batches small enough to be shared); their counts add up.
        XCTAssertEqual(delivered.reduce(0, +), 1_000, "the two servers' deliveries add up: \(delivered)")
    }

    /// A server killed (SIGKILL) in the middle of a broadcast: the other one keeps serving, and
    /// once the dead one's leases run out, sends what it was sending, with the same apns-id.
    func testKillingOneServerLeavesTheOtherServingAndItsLeasedWorkIsPickedUp() throws {
        // Answers held 2 s keep deliveries in flight; a 3 s attempt deadline makes a lease 9 s.
        // Each server pushes with its own topic, so the stand-in shows who sent what.
        let standIn = try StandIn(script: ["apnsTeamId": PushArguments.teamID, "apnsKeyId": PushArguments.keyID, "answerDelay": 2])
        self.standIn = standIn
        let servers = try nodes.start([PushArguments.apns(standIn, topic: "com.example.node0") + ["--push-timeout", "3s"],
                                       PushArguments.apns(standIn, topic: "com.example.node1") + ["--push-timeout", "3s"]])
        let ports = servers.map(\.port)
        let fans = try Nodes.signUp(30, ports: ports)
        var devices: [String] = []
        for (index, fan) in fans.enumerated() {
            let token = PushArguments.deviceToken()
            assertSuccess(try HTTPClient(port: ports[index % 2]).request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": token],
                                                                        token: fan.token), 201)
            devices.append(token)
        }
        let uploader = try HTTPClient(port: ports[0]).signup()
        _ = try Nodes.video(HTTPClient(port: ports[0]), owner: uploader, rallyId: try Nodes.rally(HTTPClient(port: ports[0]), admin: try nodes.admin(on: servers[0])))

        XCTAssertTrue(waitUntil(timeout: 20) { !standIn.requests().isEmpty }, "the broadcast started")
        let topic = { (request: [String: Any]) in (request["headers"] as? [String: Any])?["apns-topic"] as? String ?? "" }
        let sender = topic(try XCTUnwrap(standIn.requests().first)) == "com.example.node0" ? 0 : 1
        let survivor = servers[1 - sender]
        servers[sender].crash()
        let killedAt = Date().timeIntervalSince1970
        let inFlight = Set(standIn.requests().filter { topic($0) == "com.example.node\(sender)" }.compactMap { $0["path"] as? String })

        // The other server answers at once, reads and writes.
        let client = HTTPClient(port: survivor.port)
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
        XCTAssertEqual(try client.me(fans[0].token).status, 200)
        assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["displayName": "Still here"], token: fans[1].token), 200)

        XCTAssertFalse(inFlight.isEmpty)
        let resent = { standIn.requests().filter { topic($0) == "com.example.node\(1 - sender)" && inFlight.contains($0["path"] as? String ?? "") } }
        XCTAssertTrue(waitUntil(timeout: 40, interval: 0.2) { Set(resent().compactMap { $0["path"] as? String }) == inFlight },
                      "what the dead server was sending, the other one sent again: \(resent().count) of \(inFlight.count)")
        XCTAssertTrue(Set(standIn.requests().compactMap { ($0["path"] as? String)?.replacingOccurrences(of: "/3/device/", with: "") }).isSuperset(of: devices),
                      "every device got the video")
        let firstResend = resent().compactMap { $0["t"] as? Double }.min() ?? 0
        XCTAssertGreaterThan(firstResend - killedAt, 5, "not before the dead server's lease (9 s) ran out")
        for path in inFlight {
            let attempts = standIn.requests().filter { $0["path"] as? String == path }
            XCTAssertEqual(Set(attempts.compactMap { ($0["headers"] as? [String: Any])?["apns-id"] as? String }).count, 1, "the same apns-id twice: \(path)")
        }
        XCTAssertTrue(waitUntil(timeout: 10) {
            (try? survivor.withDatabase { try $0.rows("SELECT state, COUNT(*) FROM outbox WHERE kind = 'push.device' GROUP BY state") }) == [["done", "30"]]
        }, "every delivery job recorded done once")
    }

    /// `--outbox-workers`: a server without the push lane sends nothing; one with it sends all.
    func testOutboxWorkersRunOnlyOnTheServersGivenThem() throws {
        let standIn = try StandIn(script: ["apnsTeamId": PushArguments.teamID, "apnsKeyId": PushArguments.keyID])
        self.standIn = standIn
        let servers = try nodes.start([PushArguments.apns(standIn) + ["--outbox-workers", "none"],
                                       PushArguments.apns(standIn) + ["--outbox-workers", "feed,notify"]])
        XCTAssertTrue(servers[0].stderrLines.contains { $0.contains(#""msg":"outbox workers""#) && $0.contains("none") })
        let a = HTTPClient(port: servers[0].port)
        let owner = try a.signup(), fan = try a.signup()
        let token = PushArguments.deviceToken()
        assertSuccess(try a.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": token], token: owner.token), 201)
        assertSuccess(try a.request("PUT", "/v1/users/\(owner.id)/follow", token: fan.token), 200)
        // The follow's notification has run (its push waits in the push lane, the only job left)
        // and nothing moves any more: a push lane on either server would have taken it by now.
        XCTAssertTrue(try waitForIdleOutboxes(servers, standIn, backlog: 1), "the outboxes settle with the push waiting")
        XCTAssertEqual(standIn.requests().count, 0, "neither server runs the push lane")
        XCTAssertEqual(try Nodes.metric(servers[0], #"pacenote_outbox_lane_backlog{lane="push"}"#), 1, "the push waits in the outbox")

        let pusher = try nodes.start([PushArguments.apns(standIn) + ["--outbox-workers", "push"]])[0]
        XCTAssertTrue(waitUntil(timeout: 15) { standIn.requests().count == 1 }, "the server with the push lane sent it")
        // The stand-in logs a request when it arrives; the server counts it once answered.
        XCTAssertTrue(waitUntil(timeout: 10) {
            (try? Nodes.metric(pusher, #"pacenote_push_deliveries_total{provider="apns",result="delivered"}"#)) == 1
        }, "counted as delivered by the server that sent it")

        let refused = TestServer.run(binary: try TestServer.locateBinary(), arguments: ["serve", "--outbox-workers", "feed,pushes"], timeout: 30)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("--outbox-workers"), refused.stderr)
    }
}

/// `serve` flags that push to the stand-in as APNs.
enum PushArguments {
    static let teamID = "TEAM123456", keyID = "KEY1234567"

    static func apns(_ standIn: StandIn, topic: String = "com.example.vidwrc") -> [String] {
        ["--apns-key-file", standIn.apnsKeyFile, "--apns-key-id", keyID, "--apns-team-id", teamID,
         "--apns-topic", topic, "--apns-url", standIn.baseURL, "--push-ca-file", standIn.caFile]
    }

    static func deviceToken() -> String { (0..<32).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined() }
}

extension MultiNodeTests {

    /// Waits (up to 30 s, looking every 0.3 s) until the servers' outboxes are idle: `backlog`
    /// jobs left (waiting or running) in the one outbox they share, as each server's gauge says;
    /// the push attempts the servers counted at least the requests the stand-in logged (none
    /// still on its way back); and none of these counts moved since the look before.
    fileprivate func waitForIdleOutboxes(_ servers: [TestServer], _ standIn: StandIn, backlog: Double = 0) throws -> Bool {
        var previous: [Double] = []
        return try waitUntil(timeout: 30, interval: 0.3) {
            var counts: [Double] = []
            var attempts = 0.0
            for server in servers {
                let text = try HTTPClient(port: server.port).request("GET", "/metrics").text
                let lines = text.split(separator: "\n")
                let backlogLine = lines.first { $0.hasPrefix("pacenote_outbox_backlog ") }
                counts.append(backlogLine.flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1)
                attempts += lines.filter { $0.hasPrefix("pacenote_push_deliveries_total{") }
                    .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
            }
            let received = Double(standIn.requests().count)
            counts += [attempts, received]
            defer { previous = counts }
            return counts == previous && counts.prefix(servers.count).allSatisfy { $0 == backlog } && attempts >= received
        }
    }
}
