import Foundation
import TestSupport
import XCTest

/// API.md "Profile pictures" (issue 43): the session is checked before a body over 64 KiB is
/// read (401 and the connection closed without one), and such a body must arrive within 30 s
/// of its head (here `--body-timeout 2s`; else 408 and the connection closed), so slow or
/// anonymous uploads never hold the upload slots of others.
final class LargeUploadTests: ServerTestCase {
    static let bodyTimeout = 2.0
    override class var serverArguments: [String] { ["--body-timeout", "2s"] }

    /// Eight slow anonymous uploads took every slot of the server, until their bodies ended
    /// (never): each real upload was 503 meanwhile.
    func testAnonymousUploadsAre401FromTheirHeadAndTakeNoSlot() throws {
        let owner = try client.signup()
        // More than the server's eight slots, each declaring 10 MiB and sending one byte of it.
        let slow = try (0..<10).map { _ in try RawConnection(port: server.port) }
        for (index, connection) in slow.enumerated() {
            // One with a session that does not exist: refused as well, as `invalid_session`.
            XCTAssertTrue(connection.send(avatarHead(token: index == 0 ? "not-a-session-token" : nil) + "x"))
        }

        // Meanwhile (the slow sockets still open on our side) a signed-in upload is served.
        let uploaded = try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"],
                                          body: try imageFixture("landscape.jpg"), token: owner.token)
        let me = assertSuccess(uploaded, 200, "a real upload while ten anonymous ones are open")
        XCTAssertNotNil(me["avatarUrl"] as? String)

        for (index, connection) in slow.enumerated() {
            // At once, from the head: the failure condition is waiting for the 10 MiB.
            guard let answer = connection.readUntilClosed(timeout: 3) else {
                return XCTFail("anonymous upload \(index): no answer and no close within 3 s")
            }
            let refused = RawExchange(received: answer, closedByServer: true)
            XCTAssertEqual(refused.status, 401, "upload \(index): \(refused)")
            XCTAssertEqual(refused.errorCode, index == 0 ? "invalid_session" : "unauthorized", "upload \(index): the /v1 envelope: \(refused)")
            XCTAssertEqual(refused.header("Connection")?.lowercased(), "close", "upload \(index): \(refused)")
            XCTAssertEqual(refused.statusLines, 1, "upload \(index): \(refused)")
        }
    }

    func testASlowBodyIs408AfterItsDeadlineAndTheConnectionClosed() throws {
        let owner = try client.signup()
        let connection = try RawConnection(port: server.port)
        let start = Date()
        XCTAssertTrue(connection.send(avatarHead(token: owner.token) + String(repeating: "x", count: 1_024)))
        // A byte every 0.25 s: never idle (libmicrohttpd's 30 s timeout is reset by each), never done.
        var received: [UInt8] = []
        var closed = false
        while !closed && Date().timeIntervalSince(start) < Self.bodyTimeout + 5 {
            _ = connection.send("x")
            switch connection.read(timeout: 0.25) {
            case .bytes(let bytes):
                received += bytes
                received += connection.readUntilClosed(timeout: 3) ?? []
                closed = true
            case .closed: closed = true
            case .timedOut: break
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        let late = RawExchange(received: received, closedByServer: closed)
        XCTAssertTrue(closed, "the connection is closed within 5 s of the 2 s deadline: \(late)")
        XCTAssertEqual(late.status, 408, "\(late)")
        XCTAssertEqual(late.errorCode, "request_timeout", "\(late)")
        XCTAssertEqual(late.statusLines, 1, "\(late)")
        XCTAssertGreaterThanOrEqual(elapsed, Self.bodyTimeout - 0.2, "not before the deadline")

        // Its slot and the account's count came back: the same account uploads again.
        let again = try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"],
                                       body: try imageFixture("landscape.jpg"), token: owner.token)
        assertSuccess(again, 200, "an upload after the late one")
        XCTAssertTrue(server.stderrLines.contains { $0.contains("request body not complete in time") }, "the 408 is logged")
    }
}

/// An account has at most two bodies over 64 KiB in flight (API.md): a third is 429
/// `rate_limited`, another account is not held up, and the count comes back when a body is
/// done or abandoned. With the default 30 s body deadline, so no upload here is cut short.
final class LargeUploadLimitTests: ServerTestCase {
    func testAThirdLargeBodyOfOneAccountIs429WhileTwoAreInFlight() throws {
        let owner = try client.signup(), other = try client.signup()
        // Three uploads of 10 MiB begun at once: whichever head comes third is refused at once.
        let begun = try (0..<3).map { _ in try RawConnection(port: server.port) }
        for connection in begun { XCTAssertTrue(connection.send(avatarHead(token: owner.token) + String(repeating: "x", count: 1_024))) }
        var refusedIndex: Int?
        var inFlight: [RawConnection] = []
        for (index, connection) in begun.enumerated() {
            switch connection.read(timeout: 2) {
            case .bytes(let bytes):
                let refused = RawExchange(received: bytes + (connection.readUntilClosed(timeout: 3) ?? []), closedByServer: true)
                XCTAssertEqual(refused.status, 429, "\(refused)")
                XCTAssertEqual(refused.errorCode, "rate_limited", "\(refused)")
                XCTAssertEqual(refused.header("Retry-After"), "1", "\(refused)")
                XCTAssertNil(refusedIndex, "only one of three is refused")
                refusedIndex = index
            case .closed:
                XCTFail("upload \(index) closed without an answer")
            case .timedOut:
                inFlight.append(connection)
            }
        }
        XCTAssertNotNil(refusedIndex, "the third of one account's uploads is refused while two are in flight")
        guard inFlight.count == 2 else { return XCTFail("two uploads stay in flight, not \(inFlight.count)") }

        // Another account's upload is not held up by them.
        assertSuccess(try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/webp"],
                                         body: try imageFixture("photo.webp"), token: other.token), 200, "another account")

        // One abandoned: its count comes back (when the server sees it gone), so the account
        // uploads again (two in flight, briefly).
        _ = shutdown(inFlight[0].fd, Int32(SHUT_RDWR))
        XCTAssertTrue(try waitForLargeBodies(1), "the abandoned upload gave its slot back")
        assertSuccess(try newClient().request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"],
                                              body: try imageFixture("landscape.jpg"), token: owner.token), 200,
                      "an upload once one of the two was abandoned")

        // The other completed (10 MiB that are no picture: 400): nothing is held any more, so two
        // new uploads are both let in.
        let rest = [UInt8](repeating: UInt8(ascii: "x"), count: 10 * 1024 * 1024 - 1_024)
        XCTAssertTrue(inFlight[1].send(rest))
        let completed = RawExchange(received: try XCTUnwrap(inFlight[1].readUntilClosedOrAnswered(timeout: 10), "an answer to the whole body"),
                                    closedByServer: false)
        XCTAssertEqual(completed.status, 400, "\(completed)")
        XCTAssertEqual(completed.errorCode, "invalid_image", "\(completed)")
        // Counted off once MHD reports it complete, just after its answer went out.
        XCTAssertTrue(try waitForLargeBodies(0), "the completed upload gave its slot back")
        let fresh = try (0..<2).map { _ in try RawConnection(port: server.port) }
        for connection in fresh { XCTAssertTrue(connection.send(avatarHead(token: owner.token) + "x")) }
        for (index, connection) in fresh.enumerated() {
            XCTAssertEqual(connection.read(timeout: 1), .timedOut, "new upload \(index) is let in: every earlier one was counted off")
        }
        let third = try newClient().request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"],
                                            body: try imageFixture("landscape.jpg"), token: owner.token)
        assertError(third, 429, "rate_limited", "and the limit still holds")
    }
}

extension ServerTestCase {
    /// Waits (5 s at most) until `/metrics` says `count` large bodies are being received or handled.
    func waitForLargeBodies(_ count: Int) throws -> Bool {
        try waitUntil(timeout: 5, interval: 0.05) {
            let metrics = try newClient().request("GET", "/metrics").text
            return metrics.split(separator: "\n").contains("pacenote_http_large_bodies \(count)")
        }
    }

    /// The head of an avatar upload declaring 10 MiB, the route's limit.
    func avatarHead(token: String?) -> String {
        "PUT /v1/users/me/avatar HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\nContent-Length: \(10 * 1024 * 1024)\r\n"
            + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n"
    }
}

extension RawConnection {
    /// Reads one whole response (its head and its Content-Length of body) on a connection kept
    /// open, or what came before the server closed it; nil when neither within `timeout` s.
    func readUntilClosedOrAnswered(timeout: Double) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        var received: [UInt8] = []
        while Date() < deadline {
            switch read(timeout: deadline.timeIntervalSinceNow) {
            case .bytes(let bytes):
                received += bytes
                if let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                    let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
                    let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if received.count - end >= length { return received }
                }
            case .closed: return received
            case .timedOut: return received.isEmpty ? nil : received
            }
        }
        return received.isEmpty ? nil : received
    }
}
