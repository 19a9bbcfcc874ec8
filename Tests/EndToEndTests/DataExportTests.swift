import Foundation
import TestSupport
import XCTest

/// API.md "Personal data": `GET /v1/users/me/export` and `pacenote user export`, through the
/// real binary, on SQLite and (scripts/test's second pass) PostgreSQL.
final class DataExportTests: ServerTestCase {
    /// The export's lists, in the document's order.
    static let sections = ["videos", "comments", "likes", "flags", "following", "followers", "notifications", "installations", "sessions"]

    private func export(_ account: Account, method: String = "GET") throws -> HTTPResult {
        try client.request(method, "/v1/users/me/export", token: account.token)
    }

    private func list(_ document: [String: Any], _ key: String) -> [[String: Any]] {
        document[key] as? [[String: Any]] ?? []
    }

    private func ids(_ document: [String: Any], _ key: String) -> [String] {
        list(document, key).compactMap { $0["id"] as? String }
    }

    private func userIDs(_ document: [String: Any], _ key: String) -> Set<String> {
        Set(list(document, key).compactMap { child($0, "user")?["id"] as? String })
    }

    func testTheExportHoldsExactlyTheAccountsDataAndNoSecret() throws {
        let me = try client.signup(), bob = try client.signup(), carol = try client.signup(), dave = try client.signup()
        // No new-video broadcasts (other tests' uploads), so the inbox holds only what is aimed at me.
        assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["notificationSettings": ["newVideos": false]], token: me.token), 200)
        let secondSession = try client.login(me.username, me.password)
        let rallyId = try createRally()["id"] as? String ?? ""
        let mine = try feedVideo(me, rallyId)
        let hidden = try feedVideo(me, rallyId)
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hidden)/hide", json: ["reason": "test"], token: try moderator().token), 200)
        let bobs = try feedVideo(bob, rallyId)
        let daves = try feedVideo(dave, rallyId)
        // What I did.
        try feedLike(me, bobs)
        let comments = [try feedComment(me, bobs, "Flat out! \(Hostile.quotes)"), try feedComment(me, bobs, Hostile.emoji),
                        try feedComment(me, mine, "My own")]
        try feedFlag(me, bobs)
        try feedFollow(me, bob)
        // What others did to me (my inbox), and what they did among themselves (not mine).
        try feedFollow(bob, me)
        try feedFollow(carol, me)
        try feedLike(bob, mine)
        _ = try feedComment(carol, mine, "Nice one")
        try feedLike(dave, bobs)
        _ = try feedComment(dave, daves, "Dave's own")
        try feedFollow(dave, bob)
        let deviceToken = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0abcd"
        assertSuccess(try client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": deviceToken, "locale": "es-ES"],
                                         token: me.token), 201)

        let inbox = try firstPage("/v1/notifications", me.token)
        let profile = try getObject("/v1/users/me", me.token)
        let started = Date()
        let result = try export(me)
        XCTAssertEqual(result.status, 200, "\(result)")
        XCTAssertEqual(result.headers["Content-Type"], "application/json; charset=utf-8")
        XCTAssertEqual(result.headers["Transfer-Encoding"]?.lowercased(), "chunked", "streamed")
        let day = ISO8601DateFormatter.string(from: started, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        XCTAssertEqual(result.headers["Content-Disposition"], #"attachment; filename="pacenote-\#(me.username)-\#(day).json""#)
        guard let document = result.object else { return XCTFail("the export is one JSON object: \(result)") }
        XCTAssertEqual(Set(document.keys), Set(["user"] + Self.sections))

        XCTAssertEqual(document["user"] as? NSDictionary, profile as NSDictionary, "user is User(me), as GET /v1/users/me")
        XCTAssertEqual(Set(ids(document, "videos")), [mine, hidden], "my videos, the hidden one too")
        let hiddenVideo = list(document, "videos").first { $0["id"] as? String == hidden }
        XCTAssertEqual(hiddenVideo?["hidden"] as? Bool, true)
        XCTAssertNil(hiddenVideo?["owner"], "the owner is the account: not repeated")
        XCTAssertEqual(ids(document, "comments"), comments, "my comments, oldest first")
        XCTAssertEqual(list(document, "comments").map { $0["videoId"] as? String ?? "" }, [bobs, bobs, mine])
        XCTAssertEqual(list(document, "comments").map { $0["content"] as? String ?? "" }, ["Flat out! \(Hostile.quotes)", Hostile.emoji, "My own"])
        XCTAssertEqual(list(document, "likes").map { $0["videoId"] as? String ?? "" }, [bobs])
        XCTAssertEqual(list(document, "flags").map { $0["videoId"] as? String ?? "" }, [bobs])
        XCTAssertEqual(list(document, "flags").first?["reason"] as? String, "not rally")
        XCTAssertEqual(userIDs(document, "following"), [bob.id])
        XCTAssertEqual(userIDs(document, "followers"), [bob.id, carol.id])
        for follow in list(document, "following") + list(document, "followers") {
            XCTAssertNil(child(follow, "user")?["email"], "other users are public objects")
            XCTAssertNil(child(follow, "user")?["isFollowing"])
            assertTimestamp(follow["createdAt"], near: started)
        }
        XCTAssertEqual(Set(ids(document, "notifications")), Set(inbox.compactMap { $0["id"] as? String }), "the inbox")
        XCTAssertEqual(list(document, "notifications").count, 4, "bob's and carol's follows, bob's like, carol's comment")
        XCTAssertEqual(Set(list(document, "notifications").compactMap { child($0, "actor")?["id"] as? String }), [bob.id, carol.id])
        let installation = list(document, "installations")
        XCTAssertEqual(installation.count, 1)
        XCTAssertEqual(installation.first?["platform"] as? String, "ios")
        XCTAssertEqual(installation.first?["locale"] as? String, "es-ES")
        XCTAssertEqual(installation.first?["deviceTokenEnd"] as? String, String(deviceToken.suffix(6)))
        XCTAssertNil(installation.first?["deviceToken"])
        XCTAssertEqual(list(document, "sessions").count, 2, "the sign-up's and the login's")
        for session in list(document, "sessions") {
            XCTAssertEqual(Set(session.keys), ["createdAt", "lastUsedAt"])
            assertTimestamp(session["createdAt"], near: started)
            assertTimestamp(session["lastUsedAt"], near: started)
        }

        // Nothing of anyone else's private data, and no secret of mine.
        let text = result.text
        for other in [bob, carol, dave] {
            XCTAssertFalse(text.contains(other.email), "no other user's email")
        }
        XCTAssertFalse(text.contains(daves), "nothing about dave's video")
        for token in [me.token, secondSession.token] {
            XCTAssertFalse(text.contains(token), "no session token")
        }
        XCTAssertFalse(text.contains(deviceToken), "no whole device token")
        try server.withDatabase { db in
            // '!' is the hash of an account without a password: no secret, and too short to look for.
            for hash in try db.strings("SELECT token_hash FROM sessions") + db.strings("SELECT password_hash FROM users") where hash != "!" {
                XCTAssertFalse(text.contains(hash), "no session token hash or password hash")
            }
        }
        // User(me)'s `hasPassword` says whether there is one; nothing else may name a password.
        XCTAssertFalse(text.lowercased().replacingOccurrences(of: "\"haspassword\"", with: "").contains("password"))

        // One a day: the second is 429 with the seconds until the next.
        let again = try export(me)
        XCTAssertEqual(again.status, 429, "\(again)")
        XCTAssertEqual(again.errorCode, "rate_limited")
        let retryAfter = Int(again.headers["Retry-After"] ?? "") ?? 0
        XCTAssertTrue((86_000...86_400).contains(retryAfter), "Retry-After \(retryAfter)")
        XCTAssertEqual(try export(me, method: "HEAD").status, 429, "HEAD says so too")

        // The command line writes the same document, without the limit, also for a banned account.
        let viaCLI = server.runCLI(["user", "export", me.username])
        XCTAssertEqual(viaCLI.status, 0, viaCLI.stderr)
        let cliDocument = try JSONSerialization.jsonObject(with: Data(viaCLI.stdout.utf8)) as? NSDictionary
        XCTAssertEqual(cliDocument, document as NSDictionary, "the CLI's output is the API's")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(me.id)/ban", json: ["reason": "test"], token: try moderator().token), 200)
        let banned = server.runCLI(["user", "export", me.username])
        XCTAssertEqual(banned.status, 0, banned.stderr)
        let bannedDocument = try JSONSerialization.jsonObject(with: Data(banned.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(Set(ids(bannedDocument ?? [:], "comments")), Set(comments), "a banned account's export is whole")
        let nobody = server.runCLI(["user", "export", "no_such_user_here"])
        XCTAssertEqual(nobody.status, 1)
        XCTAssertTrue(nobody.stderr.contains("no account has the username"), nobody.stderr)
    }

    func testTheDailyLimitIsKeptInTheDatabaseAndRolls() throws {
        let me = try client.signup()
        XCTAssertEqual(try export(me, method: "HEAD").status, 200, "HEAD makes and counts no export")
        XCTAssertEqual(try export(me).status, 200)
        try server.withDatabase { db in
            let last = try db.int("SELECT last_export_at FROM account_exports WHERE user_id = \(me.id)")
            XCTAssertEqual(Double(last) / 1_000, Date().timeIntervalSince1970, accuracy: 60, "counted when it started, in the database")
            // 23 hours ago: an hour to wait.
            try db.write("UPDATE account_exports SET last_export_at = \(last - 23 * 3_600_000) WHERE user_id = \(me.id)")
        }
        let refused = try export(me)
        XCTAssertEqual(refused.status, 429)
        let retryAfter = Int(refused.headers["Retry-After"] ?? "") ?? 0
        XCTAssertTrue((3_500...3_600).contains(retryAfter), "Retry-After \(retryAfter)")
        try server.withDatabase { db in
            try db.write("UPDATE account_exports SET last_export_at = last_export_at - 3600000 WHERE user_id = \(me.id)")
        }
        XCTAssertEqual(try export(me).status, 200, "a day after the last, the next")
        XCTAssertEqual(try export(me).status, 429)
    }

    func testASessionsLastUseIsRecordedOnceADay() throws {
        let me = try client.signup()
        let twoDaysAgo = Int(Date().timeIntervalSince1970 * 1_000) - 2 * 86_400_000
        try server.withDatabase { db in
            try db.write("UPDATE sessions SET created_at = \(twoDaysAgo - 1_000), last_used_at = \(twoDaysAgo) WHERE user_id = \(me.id)")
        }
        Thread.sleep(forTimeInterval: 0.6)  // past the session cache
        assertSuccess(try client.me(me.token), 200)
        let document = try export(me).object ?? [:]
        let session = list(document, "sessions").first
        assertTimestamp(session?["lastUsedAt"], near: Date(), tolerance: 60, "used just now")
        assertTimestamp(session?["createdAt"], near: Date(timeIntervalSince1970: Double(twoDaysAgo) / 1_000), tolerance: 60)
    }

    func testExportNeedsASession() throws {
        let result = try client.request("GET", "/v1/users/me/export")
        XCTAssertEqual(result.status, 401)
        XCTAssertEqual(result.errorCode, "unauthorized")
    }
}

/// A user with 100,000 activities: the export streams, the server's memory stays flat, and a
/// client that leaves stops it. Rows are inserted straight into the database (a single
/// statement each), not through 100,000 requests.
final class DataExportMemoryTests: ServerTestCase {
    /// One reader connection, so SQLite's page cache (32 MiB per connection, filled by reading
    /// any 30 MB of rows, an export's or not) is one bounded amount, measured apart.
    override class var serverArguments: [String] { ["--db-readers", "1"] }

    /// What a streamed export's client saw: its body's size, how many comments it held, and
    /// whether the chunked body ended properly.
    struct Received {
        var bodyBytes = 0
        var comments = 0
        var complete = false
        var tail: [UInt8] = []
    }

    /// GETs the export on a raw connection and reads it as it comes, keeping only counts (the
    /// test process must not hold 100 MB either); stops after `stopAfter` body bytes if given.
    private func streamExport(_ token: String, stopAfter: Int? = nil) throws -> Received {
        let connection = try RawConnection(port: server.port)
        XCTAssertTrue(connection.send("GET /v1/users/me/export HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n"))
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(connection.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = Received()
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var headDone = false
        var chunkLeft = 0  // body bytes left in the current chunk; -1: its CRLF is next
        let needle = Array(#""content":"#.utf8)
        var carry: [UInt8] = []  // the body's last bytes, for a needle split between reads
        let crlf = Array("\r\n".utf8)
        reading: while true {
            let n = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            pending += buffer[0..<n]
            if !headDone {
                guard let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                XCTAssertEqual(RawConnection.status(of: pending), 200)
                pending.removeSubrange(..<end.upperBound)
                headDone = true
            }
            var offset = 0
            while offset < pending.count {
                if chunkLeft > 0 {
                    let take = min(chunkLeft, pending.count - offset)
                    let body = carry + pending[offset..<(offset + take)]
                    var from = body.startIndex
                    while let found = body[from...].firstRange(of: needle) {
                        received.comments += 1
                        from = found.upperBound
                    }
                    carry = Array(body.suffix(needle.count - 1))
                    received.tail = Array(body.suffix(16))
                    received.bodyBytes += take
                    chunkLeft -= take
                    offset += take
                    if chunkLeft == 0 { chunkLeft = -1 }
                    if let stopAfter, received.bodyBytes >= stopAfter { return received }
                } else if chunkLeft < 0 {
                    guard pending.count - offset >= 2 else { break }
                    offset += 2
                    chunkLeft = 0
                } else {
                    guard let line = pending[offset...].firstRange(of: crlf) else { break }
                    let size = Int(String(decoding: pending[offset..<line.lowerBound], as: UTF8.self), radix: 16) ?? -1
                    offset = line.upperBound
                    XCTAssertGreaterThanOrEqual(size, 0, "a chunk size line")
                    if size <= 0 {
                        received.complete = size == 0
                        break reading
                    }
                    chunkLeft = size
                }
            }
            pending.removeSubrange(..<offset)
        }
        return received
    }

    /// The `ms` of the server's last "data export ended" line that says `end`, once it is logged.
    private func serverMillis(end: String = "completed", count: Int) -> String {
        var lines: [String] = []
        _ = waitUntil(timeout: 10) {
            lines = self.server.stderrLines.filter { $0.contains("data export ended") && $0.contains(#""end":"\#(end)""#) }
            return lines.count >= count
        }
        let object = lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return object?["ms"] as? String ?? "?"
    }

    /// Inserts `count` comments by `user` on `video`, each with a 250-character text, created
    /// after `from` (milliseconds), in one statement.
    private func insertComments(_ count: Int, prefix: String, user: String, video: String, from: Int) throws {
        let filler = String(repeating: "Flat out through the forest, ", count: 9)  // 261 characters
        try server.withDatabase { db in
            try db.write("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO activities (id, type, from_user_id, to_user_id, video_id, content, created_at)
                SELECT CAST(\(prefix) AS TEXT) || CAST(i AS TEXT), 2, \(user), \(user), \(video),
                       CAST(\(filler) AS TEXT) || CAST(i AS TEXT), CAST(\(from) AS BIGINT) + i
                FROM n
                """)
        }
    }

    func testAHundredThousandActivitiesStreamWithFlatMemoryAndALeavingClientStopsIt() throws {
        let me = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let video = try postVideo(me, rallyId: rallyId)["id"] as? String ?? ""
        let start = Int(Date().timeIntervalSince1970 * 1_000) - 10_000_000
        try insertComments(100_000, prefix: "m", user: me.id, video: video, from: start)

        let baseline = try server.peakResidentKiB()
        var clock = Date()
        let first = try streamExport(me.token)
        let firstSeconds = Date().timeIntervalSince(clock)
        let firstServerMillis = serverMillis(count: 1)
        let afterFirst = try server.peakResidentKiB()
        XCTAssertTrue(first.complete, "the chunked body ended properly")
        XCTAssertEqual(first.comments, 100_000)
        XCTAssertEqual(String(decoding: first.tail.suffix(2), as: UTF8.self), "]}")
        XCTAssertGreaterThan(first.bodyBytes, 30_000_000, "tens of MB")
        // The first export's growth includes SQLite's page cache of the one reader (32 MiB at
        // most, filled by reading these rows at all), beside what the export itself holds.
        let firstGrowth = afterFirst - baseline
        XCTAssertLessThan(firstGrowth, 32 * 1_024 + 20 * 1_024, "growth \(firstGrowth) KiB for \(first.bodyBytes) bytes")

        // Twice as many rows again: the export grows by 60 MB, the server's peak by far less.
        try insertComments(200_000, prefix: "n", user: me.id, video: video, from: start + 200_000)
        try server.withDatabase { db in try db.write("DELETE FROM account_exports WHERE user_id = \(me.id)") }
        clock = Date()
        let second = try streamExport(me.token)
        let secondSeconds = Date().timeIntervalSince(clock)
        let secondServerMillis = serverMillis(count: 2)
        let afterSecond = try server.peakResidentKiB()
        XCTAssertTrue(second.complete)
        XCTAssertEqual(second.comments, 300_000)
        let secondGrowth = afterSecond - afterFirst
        XCTAssertLessThan(secondGrowth, 20 * 1_024, "peak grew \(secondGrowth) KiB while the export grew \(second.bodyBytes - first.bodyBytes) bytes")
        // The client here reads slower than the server writes (a Swift loop over every byte, in a
        // debug build); the server's own figure is its log line's `ms`.
        print("""
            data export: \(first.bodyBytes) bytes in \(String(format: "%.2f", firstSeconds)) s (server \(firstServerMillis) ms), \
            peak RSS \(baseline) -> \(afterFirst) KiB; \(second.bodyBytes) bytes in \(String(format: "%.2f", secondSeconds)) s \
            (server \(secondServerMillis) ms), peak RSS -> \(afterSecond) KiB
            """)

        // A client that leaves early: the export stops, and says so in the log.
        try server.withDatabase { db in try db.write("DELETE FROM account_exports WHERE user_id = \(me.id)") }
        let partial = try streamExport(me.token, stopAfter: 1_000_000)
        XCTAssertFalse(partial.complete)
        XCTAssertTrue(waitUntil(timeout: 15) {
            self.server.stderrLines.contains { $0.contains("data export ended") && $0.contains(#""end":"abandoned""#) }
        }, "the producer stopped: \(server.stderrLines.suffix(5))")
        let abandoned = server.stderrLines.last { $0.contains("data export ended") && $0.contains(#""end":"abandoned""#) } ?? ""
        let sentBytes = (try? JSONSerialization.jsonObject(with: Data(abandoned.utf8)) as? [String: Any])?["bytes"] as? String
        XCTAssertLessThan(Int(sentBytes ?? "") ?? .max, 20_000_000, "it stopped near where the client did: \(abandoned)")
        XCTAssertEqual(try client.request("GET", "/v1/users/me", token: me.token).status, 200, "the server goes on")
    }
}
