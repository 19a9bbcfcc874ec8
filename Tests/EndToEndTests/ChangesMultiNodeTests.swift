import Foundation
import TestSupport
import XCTest

/// "No change is ever skipped, also with several servers writing to one PostgreSQL at once"
/// (API.md "Sync"): writers on two servers create, edit and delete videos side by side, so
/// their transactions commit out of the order they took their seqs, while a reader polls
/// `GET /v1/changes` on one of them in small pages. Once the writers stop and the reader has
/// drained, its copy is exactly the database: every video created is there with its last
/// title, none deleted is, nothing else of theirs. Needs the test cluster (`scripts/postgres`).
final class ChangesMultiNodeTests: NodesTestCase {
    func testAReaderOnOneServerMissesNoChangeOfWritersOnTwo() throws {
        let servers = try nodes.start([[], []])
        let ports = servers.map(\.port)
        let a = HTTPClient(port: ports[0])
        let admin = try nodes.admin(on: servers[0])
        let rallyId = try Nodes.rally(a, admin: admin)
        let writers = 6, videosPerWriter = 20
        let tokens = try Nodes.signUp(writers, ports: ports).map(\.token)
        let reader = try HTTPClient(port: ports[0]).signup()

        // What the writers did, by video id: its last title, or nil once deleted.
        let made = Locked([String: String?]())
        let copy = Locked(ChangeReader(client: HTTPClient(port: ports[0], timeout: 30), sessionToken: reader.token))
        // Polls while the writers run, as an app refreshing; small pages so positions are
        // handed out between commits.
        let polling = BackgroundLoop { try copy.withLock { _ = try $0.page(limit: 7) } }

        let outcomes = runConcurrently(ports: ports, writers) { index, client in
            let token = tokens[index]
            do {
                for number in 0..<videosPerWriter {
                    let posted = try client.request("POST", "/v1/videos", json: ["youtubeId": Fake.youtubeId(), "title": "W\(index) \(number)",
                                                                               "rallyId": rallyId, "day": 1], token: token)
                    guard posted.status == 201, let id = posted.object?["id"] as? String else { return "POST -> \(posted.status)" }
                    made.withLock { $0[id] = "W\(index) \(number)" }
                    if number.isMultiple(of: 3) {
                        let title = "W\(index) \(number) edited"
                        let edit = try client.request("PATCH", "/v1/videos/\(id)", json: ["title": title], token: token)
                        guard edit.status == 200 else { return "PATCH -> \(edit.status)" }
                        made.withLock { $0[id] = title }
                    }
                    if number.isMultiple(of: 5) {
                        let deleted = try client.request("DELETE", "/v1/videos/\(id)", token: token)
                        guard deleted.status == 204 else { return "DELETE -> \(deleted.status)" }
                        made.withLock { $0[id] = .some(nil) }
                    }
                }
                return "ok"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertNil(polling.stop())
        XCTAssertEqual(outcomes, Array(repeating: "ok", count: writers))

        // The writers have stopped, but a change is handed out only once every transaction
        // older than it has ended (the outbox workers' among them), so the last ones may come a
        // moment later: drain until the copy holds what was made, for at most 15 s. Waiting
        // cannot hide a skip: a row handed out behind the reader's position never comes again,
        // nothing moves it any more, and the copy would stay wrong.
        let expected = made.withLock { $0 }
        let live = Set(expected.compactMap { $0.value == nil ? nil : $0.key })
        func heldVideos(_ reader: ChangeReader) -> Set<String> {
            Set(reader.objects.keys.filter { $0.hasPrefix("video/") }.map { String($0.dropFirst("video/".count)) })
        }
        func matches(_ reader: ChangeReader) -> Bool {
            heldVideos(reader) == live && expected.allSatisfy { id, title in reader.video(id)?["title"] as? String == title }
        }
        var final = copy.withLock { $0 }
        let deadline = Date().addingTimeInterval(15)
        try final.drain(limit: 50)
        while !matches(final), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            try final.drain(limit: 50)
        }
        XCTAssertEqual(expected.count, writers * videosPerWriter)
        for (id, title) in expected {
            XCTAssertEqual(final.video(id)?["title"] as? String, title, "video \(id): the copy holds \(title ?? "nothing"), as the database")
            XCTAssertTrue(final.log.contains { $0.hasPrefix("video/\(id)/") }, "video \(id) was seen")
        }
        let held = heldVideos(final)
        XCTAssertEqual(held, live, "nothing else held, nothing deleted kept")
        // And what the copy holds is what the server answers now.
        for id in held.prefix(10) {
            let served = try a.request("GET", "/v1/videos/\(id)", token: reader.token)
            XCTAssertEqual(served.object?["title"] as? String, final.video(id)?["title"] as? String)
        }
    }
}
