import Foundation
import XCTest

/// `pacenote import-parse` on the small Parse export in `shared/fixtures/parse-export-tiny`: each
/// deliberate defect reported and skipped, everything else kept with its Parse objectId as its id,
/// old passwords working, counters exact, feeds filled, and a second run changing nothing.
///
/// The import runs (twice) on the class's fresh data directory before its server starts; the
/// expectations are computed here from the JSON files, independently of the server.
final class ImportTests: ServerTestCase {
    /// `<package root>/../shared/fixtures/parse-export-tiny`, the package root found from this file's path.
    /// The fixture's folder, for a server's `prepareServer`. Without it the test is skipped on a
    /// developer's checkout that lacks ../shared, and fails in CI (`.ci/run` sets CI=true), where
    /// the folder is always there: a missing fixture is never a silent pass.
    static func requireFixture() throws -> URL {
        let directory = fixtureDirectory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw FixtureMissing(path: directory.path) }
            throw XCTSkip("the Parse export fixture is missing: no folder at \(directory.path) (expected ../shared/fixtures/parse-export-tiny beside the package root)")
        }
        return directory
    }

    /// `pacenote import-parse` of the fixture into `server`'s database.
    static func importFixture(into server: TestServer) throws {
        let run = server.runCLI(["import-parse", try requireFixture().path], timeout: 120)
        guard run.status == 0 else { throw ImportFailed(output: run.stderr) }
    }

    struct ImportFailed: Error { let output: String }

    static var fixtureDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // EndToEndTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("../shared/fixtures/parse-export-tiny")
            .standardizedFileURL
    }

    /// The objectIds the fixture's README lists as defects.
    static let defectIds = ["BadYtId001", "DupVideo01", "Dangling01", "DanglingAc", "BadTypeAct"]
    static let skippedVideoIds: Set<String> = ["BadYtId001", "DupVideo01", "Dangling01"]
    static let fixturePassword = "password123"

    struct Counts: Equatable, CustomStringConvertible {
        var users = 0, rallies = 0, videos = 0, activities = 0
        var description: String { "users \(users), rallies \(rallies), videos \(videos), activities \(activities)" }
    }

    /// What the class's `prepareServer` saw, for the tests to check.
    struct ImportRecord {
        var first: (status: Int32, stdout: String, stderr: String)
        var second: (status: Int32, stdout: String, stderr: String)
        var afterFirst: Counts
        var afterSecond: Counts
    }
    private static let record = Locked<ImportRecord?>(nil)

    static func counts(_ server: TestServer) throws -> Counts {
        try server.withDatabase { db in
            Counts(users: try db.int("SELECT COUNT(*) FROM users"),
                   rallies: try db.int("SELECT COUNT(*) FROM rallies"),
                   videos: try db.int("SELECT COUNT(*) FROM videos"),
                   activities: try db.int("SELECT COUNT(*) FROM activities"))
        }
    }

    override class func prepareServer(_ server: TestServer) throws {
        let directory = try requireFixture()
        let first = server.runCLI(["import-parse", directory.path], timeout: 120)
        let afterFirst = first.status == 0 ? try counts(server) : Counts()
        let second = server.runCLI(["import-parse", directory.path], timeout: 120)
        let afterSecond = second.status == 0 ? try counts(server) : Counts()
        record.withLock { $0 = ImportRecord(first: first, second: second, afterFirst: afterFirst, afterSecond: afterSecond) }
    }

    private func importRecord() throws -> ImportRecord {
        guard let record = Self.record.withLock({ $0 }) else {
            // prepareServer either recorded the import or threw (its error, a skip included, is
            // rethrown for every test): no record is a harness bug, not a reason to skip.
            throw ImportDidNotRun()
        }
        return record
    }

    private static func describe(_ run: (status: Int32, stdout: String, stderr: String)) -> String {
        "exit \(run.status)\n--- stdout ---\n\(run.stdout.suffix(4000))\n--- stderr ---\n\(run.stderr.suffix(4000))"
    }

    // MARK: The fixture, read independently

    struct Fixture {
        var users: [[String: Any]] = []
        var rallies: [[String: Any]] = []
        var videos: [[String: Any]] = []
        var activities: [[String: Any]] = []
        var userIds: Set<String> = []
        var keptVideos: [[String: Any]] = []
        var keptActivities: [[String: Any]] = []

        func pointer(_ object: [String: Any], _ key: String) -> String? {
            (object[key] as? [String: Any])?["objectId"] as? String
        }
    }

    private static let fixtureCache = Locked<Fixture?>(nil)

    private func fixture() throws -> Fixture {
        if let cached = Self.fixtureCache.withLock({ $0 }) { return cached }
        func load(_ name: String) throws -> [[String: Any]] {
            let data = try Data(contentsOf: Self.fixtureDirectory.appendingPathComponent("\(name).json"))
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let results = object["results"] as? [[String: Any]] else {
                throw UnexpectedResponse(request: "reading \(name).json", result: HTTPResult(status: 0, headers: HTTPHeaders(fields: []), body: data.prefix(200), json: nil))
            }
            return results
        }
        var fixture = Fixture()
        fixture.users = try load("_User")
        fixture.rallies = try load("Rallye")
        fixture.videos = try load("Video")
        fixture.activities = try load("Activity")
        fixture.userIds = Set(fixture.users.compactMap { $0["objectId"] as? String })
        fixture.keptVideos = fixture.videos.filter { !Self.skippedVideoIds.contains($0["objectId"] as? String ?? "") }
        let keptVideoIds = Set(fixture.keptVideos.compactMap { $0["objectId"] as? String })
        fixture.keptActivities = fixture.activities.filter { activity in
            let id = activity["objectId"] as? String ?? ""
            guard id != "DanglingAc", id != "BadTypeAct" else { return false }
            guard let type = jsonInt(activity["type"]), (1...4).contains(type) else { return false }
            guard let from = fixture.pointer(activity, "fromUser"), fixture.userIds.contains(from),
                  let to = fixture.pointer(activity, "toUser"), fixture.userIds.contains(to) else { return false }
            if let video = fixture.pointer(activity, "video"), !keptVideoIds.contains(video) { return false }
            return true
        }
        Self.fixtureCache.withLock { $0 = fixture }
        return fixture
    }

    private static let sessionCache = Locked([String: Account]())

    /// A fixture user logged in with the fixture's password (once per user).
    private func fixtureSession(_ user: [String: Any]) throws -> Account {
        let username = user["username"] as? String ?? ""
        if let cached = Self.sessionCache.withLock({ $0[username] }) { return cached }
        let result = try client.request("POST", "/v1/sessions", json: ["login": username, "password": Self.fixturePassword])
        guard result.status == 201, let token = result.object?["sessionToken"] as? String,
              let me = result.object?["user"] as? [String: Any] else {
            throw UnexpectedResponse(request: "POST /v1/sessions as fixture user \(username)", result: result)
        }
        let account = Account(username: username, email: user["email"] as? String ?? "", password: Self.fixturePassword, token: token, user: me)
        Self.sessionCache.withLock { $0[username] = account }
        return account
    }

    // MARK: Tests

    func testImportExitsZeroAndNamesEveryDefect() throws {
        let record = try importRecord()
        XCTAssertEqual(record.first.status, 0, "import-parse exits 0 despite the defects: \(Self.describe(record.first))")
        let output = record.first.stdout + "\n" + record.first.stderr
        for id in Self.defectIds {
            XCTAssertTrue(output.contains(id), "the import's output names the defective object \(id): \(Self.describe(record.first))")
        }
    }

    func testCountsInTheDatabase() throws {
        let record = try importRecord()
        let fixture = try fixture()
        XCTAssertEqual(fixture.users.count, 60, "the fixture itself")
        XCTAssertEqual(fixture.videos.count, 203, "the fixture itself")
        XCTAssertEqual(fixture.activities.count, 601, "the fixture itself")
        XCTAssertEqual(fixture.keptVideos.count, 200)
        let expected = Counts(users: 60, rallies: 13, videos: 200, activities: fixture.keptActivities.count)
        XCTAssertEqual(record.afterFirst, expected,
                       "the database after the import: the activities are the file's 601 minus the \(601 - fixture.keptActivities.count) skipped; \(Self.describe(record.first))")
        let videoIds = try server.withDatabase { try Set($0.strings("SELECT id FROM videos")) }
        XCTAssertEqual(videoIds, Set(fixture.keptVideos.compactMap { $0["objectId"] as? String }), "exactly the non-defective videos, by objectId")
        XCTAssertTrue(videoIds.isDisjoint(with: Self.skippedVideoIds), "no defective video was imported")
    }

    func testASecondImportExitsZeroAndChangesNothing() throws {
        let record = try importRecord()
        XCTAssertEqual(record.second.status, 0, "a second import-parse exits 0: \(Self.describe(record.second))")
        XCTAssertEqual(record.afterSecond, record.afterFirst, "a second import changes no count")
        XCTAssertEqual(try Self.counts(server), record.afterFirst, "and the running server sees the same")
    }

    func testObjectIdsAreKeptAsIds() throws {
        let fixture = try fixture()
        let viewer = try fixtureSession(fixture.users[0])
        for video in fixture.keptVideos.prefix(5) + fixture.keptVideos.suffix(5) {
            let id = video["objectId"] as? String ?? ""
            let got = try getObject("/v1/videos/\(id)", viewer.token)
            XCTAssertEqual(got["id"] as? String, id, "GET /v1/videos/<objectId>")
            XCTAssertEqual(got["youtubeId"] as? String, video["youtubeID"] as? String)
            XCTAssertEqual(got["title"] as? String, video["title"] as? String)
            XCTAssertEqual(got["rallyId"] as? String, fixture.pointer(video, "rallyId"))
            XCTAssertEqual(child(got, "owner")?["id"] as? String, fixture.pointer(video, "owner"))
            assertVideo(got)
        }
        for user in fixture.users.prefix(10) {
            let username = user["username"] as? String ?? ""
            let got = try getObject("/v1/users/\(username)", viewer.token)
            XCTAssertEqual(got["id"] as? String, user["objectId"] as? String, "GET /v1/users/\(username) has the fixture objectId as id")
            XCTAssertEqual(got["username"] as? String, username)
        }
        for rally in fixture.rallies {
            let id = rally["objectId"] as? String ?? ""
            XCTAssertEqual(try getObject("/v1/rallies/\(id)", viewer.token)["id"] as? String, id, "GET /v1/rallies/<objectId>")
        }
        for id in Self.skippedVideoIds {
            assertError(try client.request("GET", "/v1/videos/\(id)", token: viewer.token), 404, "not_found", "the skipped video \(id)")
        }
    }

    func testFixtureUsersLogInWithTheirOldPassword() throws {
        let fixture = try fixture()
        for user in [fixture.users.first, fixture.users.last].compactMap({ $0 }) {
            let username = user["username"] as? String ?? ""
            let result = try client.request("POST", "/v1/sessions", json: ["login": username, "password": Self.fixturePassword])
            let body = assertSuccess(result, 201, "\(username) logs in with password123")
            XCTAssertEqual(child(body, "user")?["id"] as? String, user["objectId"] as? String)
            XCTAssertNotNil(body["sessionToken"] as? String)
            assertError(try client.request("POST", "/v1/sessions", json: ["login": username, "password": "password124"]),
                        401, "invalid_credentials", "a wrong password")
        }
        let byEmail = fixture.users[1]
        assertSuccess(try client.request("POST", "/v1/sessions", json: ["login": byEmail["email"] as? String ?? "", "password": Self.fixturePassword]),
                      201, "login by email")
    }

    func testStoredCountersEqualTheActivities() throws {
        let counts = try Self.counts(server)
        XCTAssertGreaterThan(counts.activities, 0, "the import brought activities to count (\(counts))")
        XCTAssertGreaterThan(counts.videos, 0, "the import brought videos to count (\(counts))")
        StoredCounters.assertAllExact(server, "after import-parse (twice)")
    }

    func testLikesAndCommentsCountsEqualTheFilesActivities() throws {
        let fixture = try fixture()
        var likes: [String: Int] = [:]
        var comments: [String: Int] = [:]
        for activity in fixture.keptActivities {
            guard let video = fixture.pointer(activity, "video") else { continue }
            switch jsonInt(activity["type"]) {
            case 1: likes[video, default: 0] += 1
            case 2: comments[video, default: 0] += 1
            default: break
            }
        }
        let viewer = try fixtureSession(fixture.users[2])
        var mismatches: [String] = []
        for video in fixture.keptVideos {
            let id = video["objectId"] as? String ?? ""
            let got = try getObject("/v1/videos/\(id)", viewer.token)
            if jsonInt(got["likesCount"]) != likes[id, default: 0] {
                mismatches.append("\(id) likesCount \(String(describing: got["likesCount"])), file has \(likes[id, default: 0]) likes (nLikes \(String(describing: video["nLikes"])))")
            }
            if jsonInt(got["commentsCount"]) != comments[id, default: 0] {
                mismatches.append("\(id) commentsCount \(String(describing: got["commentsCount"])), file has \(comments[id, default: 0]) comments")
            }
        }
        XCTAssertEqual(mismatches, [], "likesCount and commentsCount over HTTP count the file's activities")
        XCTAssertGreaterThan(likes.values.reduce(0, +), 0, "the fixture has likes at all")
    }

    func testAFixtureUsersFeedsShowWhoTheyFollow() throws {
        let fixture = try fixture()
        let videoOwner = Dictionary(fixture.keptVideos.map { ($0["objectId"] as? String ?? "", fixture.pointer($0, "owner") ?? "") }) { first, _ in first }
        var follows: [String: Set<String>] = [:]
        for activity in fixture.keptActivities where jsonInt(activity["type"]) == 4 {
            follows[fixture.pointer(activity, "fromUser") ?? "", default: []].insert(fixture.pointer(activity, "toUser") ?? "")
        }
        func expectedHome(_ userId: String) -> Set<String> {
            let people = follows[userId, default: []].union([userId])
            return Set(videoOwner.filter { people.contains($0.value) }.keys)
        }
        func expectedFollowing(_ userId: String) -> [String] {
            let people = follows[userId, default: []]
            // An import brings each reader's 200 most recent following activities (the depth
            // of a follow, docs/ARCHITECTURE.md).
            return fixture.keptActivities.filter { activity in
                guard let type = jsonInt(activity["type"]), [1, 2, 4].contains(type) else { return false }
                return people.contains(fixture.pointer(activity, "fromUser") ?? "")
            }.sorted { ($0["createdAt"] as? String ?? "") > ($1["createdAt"] as? String ?? "") }.prefix(200).map { activity in
                let name = ["", "like", "comment", "inappropriate", "follow"][jsonInt(activity["type"]) ?? 0]
                return "\(name) \(fixture.pointer(activity, "fromUser") ?? "?")->\(fixture.pointer(activity, "toUser") ?? "?") @\(fixture.pointer(activity, "video") ?? "-")"
            }.sorted()
        }
        // The user whose followees have the most videos (ties: the most following activities).
        let candidates = fixture.users.compactMap { $0["objectId"] as? String }.filter { !(follows[$0] ?? []).isEmpty }
        guard let chosenId = candidates.max(by: { a, b in
            (expectedHome(a).count, expectedFollowing(a).count) < (expectedHome(b).count, expectedFollowing(b).count)
        }), let chosen = fixture.users.first(where: { $0["objectId"] as? String == chosenId }) else {
            return XCTFail("the fixture has no user who follows someone")
        }
        let account = try fixtureSession(chosen)
        let home = try feedItems(.home, account)
        let ownVideos = expectedHome(chosenId).filter { videoOwner[$0] == chosenId }
        XCTAssertGreaterThan(expectedHome(chosenId).count, ownVideos.count, "the chosen user's followees have videos")
        XCTAssertEqual(Set(ids(home)), expectedHome(chosenId),
                       "\(account.username)'s home: the videos of the \(follows[chosenId]?.count ?? 0) people they follow and their own")
        XCTAssertEqual(ids(home).count, Set(ids(home)).count, "no video twice in home")
        assertNewestFirst(home, "imported home")

        let following = try feedItems(.following, account)
        XCTAssertFalse(expectedFollowing(chosenId).isEmpty, "the chosen user's followees did something")
        XCTAssertEqual(following.map(activityKey).sorted(), expectedFollowing(chosenId),
                       "\(account.username)'s following feed: the likes, comments and follows of the people they follow")
        assertNewestFirst(following, "imported following")
        XCTAssertFalse(following.contains { $0["type"] as? String == "inappropriate" }, "never a flag")
    }
}

/// `pacenote import-parse` on `Tests/Support/fixtures/parse-export-social` (its README lists the
/// users and ids): the Facebook and Twitter ids of `authData` are linked to the imported
/// accounts, the summary's `identities` line counts them, the duplicated Facebook id is named
/// on stderr, no token of `authData` is printed, and a second run adds nothing.
final class SocialImportTests: CommandTestCase {
    static let fixtureDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/fixtures/parse-export-social").standardizedFileURL

    private static func describe(_ run: (status: Int32, stdout: String, stderr: String)) -> String {
        "exit \(run.status)\n--- stdout ---\n\(run.stdout.suffix(3000))\n--- stderr ---\n\(run.stderr.suffix(3000))"
    }

    func testFacebookAndTwitterIdsAreLinkedAndCounted() throws {
        let path = Self.fixtureDirectory.path
        let first = server.runCLI(["import-parse", path], timeout: 120)
        XCTAssertEqual(first.status, 0, Self.describe(first))
        XCTAssertTrue(first.stdout.contains("\n  identities: 6 imported, 0 already present, 1 not linked\n"), Self.describe(first))
        XCTAssertTrue(first.stdout.contains("_User: 10 read, 10 imported, 0 already present, 0 skipped"), Self.describe(first))
        XCTAssertTrue(first.stderr.contains("identity _User FbDupl0001: facebook 10152384756102938: linked to another account (Fb2014User); not linked"),
                      Self.describe(first))
        XCTAssertTrue(first.stderr.contains("note _User BadAuth001: authData is not an object"), Self.describe(first))
        XCTAssertFalse((first.stdout + first.stderr).contains("Fake"), "no token or secret of authData is printed: \(Self.describe(first))")
        let want = [
            ["facebook", "10152384756102938", "Fb2014User"], ["facebook", "10153000111222333", "FbTwBoth01"],
            ["facebook", "10204455667788990", "FbNoMail01"], ["twitter", "1234567890", "TwNoMail01"],
            ["twitter", "2244668800", "TwMail0001"], ["twitter", "987654321", "FbTwBoth01"],
        ]
        func identities() throws -> [[String]] {
            try server.withDatabase { try $0.rows("SELECT provider, subject, user_id FROM identities ORDER BY provider, subject") }
        }
        XCTAssertEqual(try identities(), want)
        try server.withDatabase { db in
            XCTAssertEqual(try db.strings("SELECT id FROM videos WHERE owner_id = 'Fb2014User' ORDER BY id"), ["Fb14Video1", "Fb14Video2", "Fb14Video3"])
            XCTAssertEqual(try db.strings("SELECT email FROM users WHERE id = 'Fb2014User'"), ["fb2014@example.com"])
        }

        let second = server.runCLI(["import-parse", path], timeout: 120)
        XCTAssertEqual(second.status, 0, Self.describe(second))
        XCTAssertTrue(second.stdout.contains("\n  identities: 0 imported, 6 already present, 1 not linked\n"), Self.describe(second))
        XCTAssertEqual(try identities(), want, "a second run adds nothing")
    }
}

/// The shared Parse fixture is missing where it must be present (CI).
struct FixtureMissing: Error, CustomStringConvertible {
    let path: String
    var description: String { "the Parse export fixture is missing at \(path); CI must provide ../shared/fixtures/parse-export-tiny" }
}

/// The import record is missing although prepareServer did not fail: a harness bug.
struct ImportDidNotRun: Error, CustomStringConvertible {
    var description: String { "prepareServer neither recorded the import nor failed" }
}
