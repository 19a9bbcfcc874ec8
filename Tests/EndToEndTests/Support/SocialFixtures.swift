import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// Helpers for the rally, video and activity tests: staff accounts made with the command line,
// rallies relative to today's UTC date, unique YouTube ids, and page walking.

/// Calendar dates as the API writes them (`YYYY-MM-DD`, UTC).
enum UTCDate {
    private static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    /// Today's UTC date moved by `days` (negative: in the past).
    static func today(_ days: Int = 0) -> String {
        string(calendar.date(byAdding: .day, value: days, to: Date())!)
    }

    /// `date` (YYYY-MM-DD) moved by `days`.
    static func adding(_ days: Int, to date: String) -> String {
        string(calendar.date(byAdding: .day, value: days, to: parse(date))!)
    }

    static func parse(_ text: String) -> Date {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        precondition(parts.count == 3, "not a YYYY-MM-DD date: \(text)")
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
    }

    static func string(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// The current UTC year.
    static var year: Int { calendar.component(.year, from: Date()) }
}

extension Fake {
    private static let youtubeCounter = Locked(0)

    /// A fresh, valid, bare YouTube id: 11 characters of `[A-Za-z0-9_-]`, unique within the run
    /// (and random enough to be unique across the runs that share nothing anyway).
    static func youtubeId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
        let n = youtubeCounter.withLock { value -> Int in
            value += 1
            return value
        }
        var counter = ""
        var rest = n
        for _ in 0..<4 {
            counter.append(alphabet[rest % 64])
            rest /= 64
        }
        // A letter first keeps ids that start with '-' out of the way of naive command-line parsing.
        let head = String("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".randomElement()!)
        let random = String((0..<6).map { _ in alphabet.randomElement()! })
        return head + random + counter
    }

    /// A word no other test uses (lower-case letters only, so search tokenizers keep it whole).
    static func word(_ prefix: String = "zq") -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return prefix + String((0..<8).map { _ in letters.randomElement()! })
    }
}

/// Staff accounts per server (keyed by data directory, so a port reused by a later class's server
/// never hands out a stale session).
private let staffAccounts = Locked([String: Account]())

/// Percent-encodes a query value (cursors are opaque and may hold `+`, `/` or `=`).
func queryValue(_ value: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
}

/// `path` with `name=value` appended to its query string.
func appendingQuery(_ path: String, _ name: String, _ value: String) -> String {
    path + (path.contains("?") ? "&" : "?") + name + "=" + queryValue(value)
}

/// The `items` of a page (or of the rally season list).
func pageItems(_ object: [String: Any]) -> [[String: Any]] {
    object["items"] as? [[String: Any]] ?? []
}

func ids(_ items: [[String: Any]]) -> [String] {
    items.map { $0["id"] as? String ?? "(no id)" }
}

func string(_ value: Any?) -> String? { value as? String }

/// The nested object `key` of `object`.
func child(_ object: [String: Any]?, _ key: String) -> [String: Any]? {
    object?[key] as? [String: Any]
}

extension ServerTestCase {
    /// A user with `role` made with `pacenote user create`, then logged in over HTTP.
    func makeStaff(role: String, username: String? = nil) throws -> Account {
        let username = username ?? "\(role.prefix(3))_" + Fake.username(length: 12)
        let email = Fake.email(for: username)
        let password = Fake.password()
        let run = server.runCLI([
            "user", "create", "--username", username, "--email", email, "--password", password,
            "--role", role, "--bcrypt-cost", "4",
        ])
        guard run.status == 0 else {
            throw UnexpectedResponse(request: "pacenote user create --role \(role)",
                                     result: HTTPResult(status: Int(run.status), headers: HTTPHeaders(fields: []),
                                                        body: Data((run.stdout + "\n" + run.stderr).utf8), json: nil))
        }
        let session = try client.login(username, password)
        return Account(username: username, email: email, password: password, token: session.token, user: session.user)
    }

    /// This server's admin (made once per server).
    func admin() throws -> Account { try cachedStaff(role: "admin") }

    /// This server's moderator (made once per server).
    func moderator() throws -> Account { try cachedStaff(role: "moderator") }

    private func cachedStaff(role: String) throws -> Account {
        let key = server.dataDir.path + "#" + role
        if let account = staffAccounts.withLock({ $0[key] }) { return account }
        let account = try makeStaff(role: role)
        staffAccounts.withLock { $0[key] = account }
        return account
    }

    /// POST /v1/rallies as the admin; throws unless 201.
    @discardableResult
    func createRally(
        name: String? = nil, country: String = "Finland", start: String = UTCDate.today(-1), end: String? = nil
    ) throws -> [String: Any] {
        let body: [String: Any] = [
            "name": name ?? "Rally \(Fake.word())", "country": country,
            "startDate": start, "endDate": end ?? UTCDate.adding(2, to: start),
        ]
        let result = try client.request("POST", "/v1/rallies", json: body, token: try admin().token)
        guard result.status == 201, let rally = result.object else {
            throw UnexpectedResponse(request: "POST /v1/rallies \(body)", result: result)
        }
        return rally
    }

    /// POST /v1/videos; throws unless 201.
    @discardableResult
    func postVideo(
        _ account: Account, rallyId: String, day: Int = 1, title: String? = nil,
        youtubeId: String = Fake.youtubeId(), description: String? = nil
    ) throws -> [String: Any] {
        var body: [String: Any] = [
            "youtubeId": youtubeId, "title": title ?? "Stage \(Fake.word())", "rallyId": rallyId, "day": day,
        ]
        if let description { body["description"] = description }
        let result = try client.request("POST", "/v1/videos", json: body, token: account.token)
        guard result.status == 201, let video = result.object else {
            throw UnexpectedResponse(request: "POST /v1/videos \(body)", result: result)
        }
        return video
    }

    /// A rally that is live today (yesterday..tomorrow, three days) and one video on day 1 by `owner`.
    func rallyAndVideo(owner: Account, title: String? = nil) throws -> (rally: [String: Any], video: [String: Any]) {
        let rally = try createRally()
        let video = try postVideo(owner, rallyId: rally["id"] as? String ?? "", title: title)
        return (rally, video)
    }

    /// GET `path` and returns the object; fails the test (and returns [:]) unless 200.
    @discardableResult
    func getObject(_ path: String, _ token: String?, _ context: String = "", file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        assertSuccess(try client.request("GET", path, token: token), 200, context.isEmpty ? "GET \(path)" : context, file: file, line: line)
    }

    /// GET a list's first page (`limit` items at most) and returns its items; fails unless 200.
    func firstPage(_ path: String, _ token: String?, limit: Int = 100, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        pageItems(try getObject(appendingQuery(path, "limit", "\(limit)"), token, file: file, line: line))
    }

    /// Walks a list by `limit` until `nextCursor` is null (at most `maxPages` pages); returns the
    /// items and the size of each page. `between` runs after each page but the last (to insert items).
    func allPages(
        _ path: String, _ token: String?, limit: Int, maxPages: Int = 50,
        between: ((Int) throws -> Void)? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (items: [[String: Any]], sizes: [Int]) {
        var items: [[String: Any]] = []
        var sizes: [Int] = []
        var cursor: String?
        for pageNumber in 0..<maxPages {
            var pagePath = appendingQuery(path, "limit", "\(limit)")
            if let cursor { pagePath = appendingQuery(pagePath, "cursor", cursor) }
            let result = try client.request("GET", pagePath, token: token)
            let page = assertSuccess(result, 200, "page \(pageNumber + 1) of \(path)", file: file, line: line)
            guard result.status == 200 else { break }
            XCTAssertTrue(page.keys.contains("nextCursor"), "a page has nextCursor (null on the last): \(result)", file: file, line: line)
            let pageItems = pageItems(page)
            items += pageItems
            sizes.append(pageItems.count)
            guard let next = page["nextCursor"] as? String else { return (items, sizes) }
            XCTAssertFalse(next.isEmpty, "nextCursor is null or a non-empty string", file: file, line: line)
            cursor = next
            try between?(pageNumber)
        }
        XCTFail("\(path): still a nextCursor after \(maxPages) pages", file: file, line: line)
        return (items, sizes)
    }
}

/// The Rally object of the brief: every field, with days 1...N on consecutive dates.
func assertRally(_ rally: [String: Any]?, file: StaticString = #filePath, line: UInt = #line) {
    guard let rally else { return XCTFail("expected a Rally object", file: file, line: line) }
    XCTAssertFalse((rally["id"] as? String ?? "").isEmpty, "Rally.id: \(rally)", file: file, line: line)
    XCTAssertNotNil(rally["name"] as? String, "Rally.name: \(rally)", file: file, line: line)
    XCTAssertNotNil(rally["country"] as? String, "Rally.country: \(rally)", file: file, line: line)
    XCTAssertTrue(["upcoming", "imminent", "live", "finished"].contains(rally["status"] as? String ?? ""), "Rally.status: \(rally)", file: file, line: line)
    XCTAssertNotNil(jsonInt(rally["videosCount"]), "Rally.videosCount is an integer: \(rally)", file: file, line: line)
    guard let start = rally["startDate"] as? String, let end = rally["endDate"] as? String,
          start.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil,
          end.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil else {
        return XCTFail("Rally.startDate and endDate are YYYY-MM-DD: \(rally)", file: file, line: line)
    }
    let days = rally["days"] as? [[String: Any]] ?? []
    var expected = start
    for (index, day) in days.enumerated() {
        XCTAssertEqual(jsonInt(day["number"]), index + 1, "days are numbered 1...N: \(rally)", file: file, line: line)
        XCTAssertEqual(day["date"] as? String, expected, "day \(index + 1) is startDate + \(index): \(rally)", file: file, line: line)
        XCTAssertTrue(["upcoming", "imminent", "live", "finished"].contains(day["status"] as? String ?? ""), "day status: \(day)", file: file, line: line)
        expected = UTCDate.adding(1, to: expected)
    }
    XCTAssertEqual(days.last?["date"] as? String, end, "the last day is endDate: \(rally)", file: file, line: line)
}

/// The Video object of the brief, as seen with a session.
func assertVideo(_ video: [String: Any]?, file: StaticString = #filePath, line: UInt = #line) {
    guard let video else { return XCTFail("expected a Video object", file: file, line: line) }
    XCTAssertFalse((video["id"] as? String ?? "").isEmpty, "Video.id: \(video)", file: file, line: line)
    let youtubeId = video["youtubeId"] as? String ?? ""
    XCTAssertNotNil(youtubeId.range(of: "^[A-Za-z0-9_-]{11}$", options: .regularExpression), "Video.youtubeId is a bare id: \(video)", file: file, line: line)
    XCTAssertEqual(video["thumbnailUrl"] as? String, "https://i.ytimg.com/vi/\(youtubeId)/hqdefault.jpg", file: file, line: line)
    XCTAssertEqual(video["watchUrl"] as? String, "https://www.youtube.com/watch?v=\(youtubeId)", file: file, line: line)
    XCTAssertTrue(video["shareUrl"] is NSNull || (video["shareUrl"] as? String)?.hasSuffix("/v/\(video["id"] as? String ?? "")") == true,
                  "Video.shareUrl is the public page or null: \(video)", file: file, line: line)
    XCTAssertNotNil(video["title"] as? String, "Video.title: \(video)", file: file, line: line)
    XCTAssertNotNil(video["description"] as? String, "Video.description is a string (empty when none): \(video)", file: file, line: line)
    XCTAssertNotNil(video["rallyId"] as? String, "Video.rallyId: \(video)", file: file, line: line)
    XCTAssertNotNil(jsonInt(video["day"]), "Video.day: \(video)", file: file, line: line)
    XCTAssertNotNil(jsonInt(video["likesCount"]), "Video.likesCount: \(video)", file: file, line: line)
    XCTAssertNotNil(jsonInt(video["commentsCount"]), "Video.commentsCount: \(video)", file: file, line: line)
    XCTAssertTrue(isJSONBool(video["hidden"]), "Video.hidden is a boolean: \(video)", file: file, line: line)
    XCTAssertTrue(isJSONBool(video["likedByMe"]), "Video.likedByMe is a boolean with a session: \(video)", file: file, line: line)
    assertTimestamp(video["createdAt"], "Video.createdAt", file: file, line: line)
    assertPublicUser(video["owner"] as? [String: Any], file: file, line: line)
}

/// The Activity object of the brief.
func assertActivity(_ activity: [String: Any]?, type: String, file: StaticString = #filePath, line: UInt = #line) {
    guard let activity else { return XCTFail("expected an Activity object", file: file, line: line) }
    XCTAssertFalse((activity["id"] as? String ?? "").isEmpty, "Activity.id: \(activity)", file: file, line: line)
    XCTAssertEqual(activity["type"] as? String, type, "Activity.type: \(activity)", file: file, line: line)
    assertPublicUser(activity["fromUser"] as? [String: Any], file: file, line: line)
    assertPublicUser(activity["toUser"] as? [String: Any], file: file, line: line)
    XCTAssertTrue(activity.keys.contains("video"), "Activity.video is present (null for follows): \(activity)", file: file, line: line)
    XCTAssertTrue(activity.keys.contains("content"), "Activity.content is present (null when none): \(activity)", file: file, line: line)
    assertTimestamp(activity["createdAt"], "Activity.createdAt", file: file, line: line)
}

/// Runs `work` on `count` threads, each with its own connection (opened before the start), all
/// released together; returns each thread's outcome string.
func runConcurrently(port: Int, _ count: Int, _ work: @escaping @Sendable (Int, HTTPClient) -> String) -> [String] {
    runConcurrently(ports: [port], count, work)
}

/// The same, thread `i` connected to `ports[i % ports.count]` (several servers on one database).
func runConcurrently(ports: [Int], _ count: Int, _ work: @escaping @Sendable (Int, HTTPClient) -> String) -> [String] {
    let results = Locked([String?](repeating: nil, count: count))
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let gate = DispatchSemaphore(value: 0)
    for index in 0..<count {
        ready.enter()
        done.enter()
        Thread {
            let client = HTTPClient(port: ports[index % ports.count], timeout: 30)
            _ = try? client.request("GET", "/healthz")  // Connect before the gate opens.
            ready.leave()
            gate.wait()
            let outcome = work(index, client)
            client.close()
            results.withLock { $0[index] = outcome }
            done.leave()
        }.start()
    }
    XCTAssertEqual(ready.wait(timeout: .now() + 30), .success, "threads connected")
    for _ in 0..<count { gate.signal() }
    XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "all requests answered within 60 s")
    return results.withLock { $0.map { $0 ?? "no answer" } }
}

/// An API timestamp (ISO 8601 UTC with milliseconds) as a Date; nil if it is not one.
func parseTimestamp(_ value: Any?) -> Date? {
    guard let text = value as? String else { return nil }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
}
