import Foundation
import TestSupport
import XCTest

/// Pull-to-refresh with two servers on one PostgreSQL (API.md "Sync"): writers on both post
/// videos side by side, so their transactions commit out of the order of their positions,
/// while a reader on one server refreshes a rally day and its home feed in pages of 3. Once
/// the writers stop, each list's first page and refreshes hold every video made, each once.
/// Needs the test cluster (`scripts/postgres`).
final class RefreshMultiNodeTests: NodesTestCase {
    func testARefreshOnOneServerMissesNoVideoOfWritersOnTwo() throws {
        let servers = try nodes.start([[], []])
        let ports = servers.map(\.port)
        let a = HTTPClient(port: ports[0])
        let admin = try nodes.admin(on: servers[0])
        let rallyId = try Nodes.rally(a, admin: admin)
        let writers = try Nodes.signUp(6, ports: ports)
        let reader = try a.signup()
        for writer in writers {
            XCTAssertEqual(try a.request("PUT", "/v1/users/\(writer.id)/follow", token: reader.token).status, 200)
        }

        let lists = ["/v1/rallies/\(rallyId)/days/1/videos", "/v1/feed/home"]
        let refreshers = Locked(lists.map { ListRefresher(client: HTTPClient(port: ports[0], timeout: 30), path: $0, token: reader.token, limit: 3) })
        try refreshers.withLock { all in for index in all.indices { try all[index].start() } }
        let polling = BackgroundLoop { try refreshers.withLock { all in for index in all.indices { try all[index].refresh() } } }

        let made = Locked(Set<String>())
        let tokens = writers.map(\.token)
        let outcomes = runConcurrently(ports: ports, writers.count) { index, client in
            do {
                for number in 0..<15 {
                    let posted = try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": "W\(index) \(number)",
                                                                               "rallyId": rallyId, "day": 1], token: tokens[index])
                    guard posted.status == 201, let id = posted.object?["id"] as? String else { return "POST -> \(posted.status)" }
                    made.withLock { _ = $0.insert(id) }
                }
                return "ok"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertNil(polling.stop())
        XCTAssertEqual(outcomes, Array(repeating: "ok", count: writers.count))

        var final = refreshers.withLock { $0 }
        let expected = made.withLock { $0 }
        XCTAssertEqual(expected.count, writers.count * 15)
        for index in final.indices {
            try final[index].refresh()
            XCTAssertEqual(Set(final[index].seen), expected, "\(lists[index]): every video made, no other")
            XCTAssertEqual(final[index].repeats, [], "\(lists[index]): none twice")
        }
    }
}
