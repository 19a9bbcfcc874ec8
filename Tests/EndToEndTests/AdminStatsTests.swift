import Foundation
import TestSupport
import XCTest

/// `GET /v1/admin/stats` through the real binary: the last 30 days, today's numbers exactly
/// what the test made (on a fresh database), totals their sums; admins only. Both databases.
final class AdminStatsTests: XCTestCase {
    private var server: TestServer!
    private var client: HTTPClient!

    override func tearDown() {
        client?.close()
        server?.stop()
        server = nil
        super.tearDown()
    }

    func testTodaysNumbersAreWhatWasCreatedAndOnlyAdminsReadThem() throws {
        server = try TestServer()
        try server.start()
        client = HTTPClient(port: server.port)
        let admin = try client.signup()
        XCTAssertEqual(server.runCLI(["user", "role", admin.username, "admin"]).status, 0)
        let owner = try client.signup(), fans = try (0..<3).map { _ in try client.signup() }
        let rally = assertSuccess(try client.request("POST", "/v1/rallies", json: ["name": "Rally \(Fake.word())", "country": "Finland",
                                                                                   "startDate": UTCDate.today(-1), "endDate": UTCDate.today(1)], token: admin.token), 201)
        var videos: [String] = []
        for index in 0..<2 {
            let video = assertSuccess(try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": "Stage \(index)",
                                                                                      "rallyId": rally["id"] as? String ?? "", "day": 1], token: owner.token), 201)
            videos.append(video["id"] as? String ?? "")
        }
        for fan in fans { assertSuccess(try client.request("PUT", "/v1/videos/\(videos[0])/like", token: fan.token), 200) }
        assertSuccess(try client.request("POST", "/v1/videos/\(videos[1])/comments", json: ["content": "Flat out"], token: fans[0].token), 201)
        assertSuccess(try client.request("POST", "/v1/videos/\(videos[1])/comments", json: ["content": "Sideways"], token: fans[1].token), 201)
        assertSuccess(try client.request("POST", "/v1/videos/\(videos[1])/flags", json: ["reason": "spam"], token: fans[2].token), 201)
        assertError(try client.request("GET", "/v1/admin/stats", token: owner.token), 403, "forbidden")

        let started = Date()
        let stats = assertSuccess(try client.request("GET", "/v1/admin/stats", token: admin.token), 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        let days = try XCTUnwrap(stats["days"] as? [[String: Any]])
        XCTAssertEqual(days.count, 30)
        XCTAssertEqual(days.last?["date"] as? String, UTCDate.today(0), "oldest first, today last")
        XCTAssertEqual(days.first?["date"] as? String, UTCDate.today(-29))
        let today = try XCTUnwrap(days.last)
        let expected: [String: Int] = ["signups": 5, "activeUsers": 5, "videos": 2, "likes": 3, "comments": 2, "flags": 1]
        for (key, value) in expected {
            XCTAssertEqual(today[key] as? Int, value, "today's \(key)")
            XCTAssertEqual(child(stats, "totals")?[key] as? Int, value, "the 30 days' \(key)")
        }
        for day in days.dropLast() { XCTAssertEqual(day["signups"] as? Int, 0, "\(day)") }
    }
}
