import Auth
import Foundation
import Storage
import TestSupport
import Testing
import VideoRegistry
@testable import ParseImport
@testable import Community

/// What the tiny export should import, computed here from its JSON with Foundation,
/// independently of the importer's reader and mappers.
struct ExpectedImport {
    var users: Set<String> = []
    var usernames: [String: String] = [:]
    var videos: [String: String] = [:]               // id -> owner
    var skippedVideos: [String] = []
    var activities: [(id: String, type: Int, from: String, to: String, video: String?)] = []
    var skippedActivities: [String] = []
    var rallies = 0

    init(directory: URL) throws {
        func results(_ name: String) throws -> [[String: Any]] {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["results"] as? [[String: Any]] ?? []
        }
        func pointer(_ value: Any?) -> String? { (value as? [String: Any])?["objectId"] as? String }
        for user in try results("_User.json") {
            let id = user["objectId"] as! String
            users.insert(id)
            usernames[id] = user["username"] as? String
        }
        let rallies = Set(try results("Rallye.json").map { $0["objectId"] as! String })
        self.rallies = rallies.count
        let ytPattern = try NSRegularExpression(pattern: "^[A-Za-z0-9_-]{11}$")
        var youtubeIDs: Set<String> = []
        for video in try results("Video.json") {
            let id = video["objectId"] as! String
            let yt = video["youtubeID"] as? String ?? ""
            let valid = ytPattern.firstMatch(in: yt, range: NSRange(yt.startIndex..., in: yt)) != nil
            guard valid, !youtubeIDs.contains(yt), let owner = pointer(video["owner"]), users.contains(owner),
                  let rally = pointer(video["rallyId"]), rallies.contains(rally) else {
                skippedVideos.append(id)
                continue
            }
            youtubeIDs.insert(yt)
            videos[id] = owner
        }
        var pairs: Set<String> = []
        for activity in try results("Activity.json") {
            let id = activity["objectId"] as! String
            let type = activity["type"] as? Int ?? 0
            let from = pointer(activity["fromUser"]) ?? "", to = pointer(activity["toUser"]) ?? ""
            let video = type == 4 ? nil : pointer(activity["video"])
            let content = ((activity["content"] as? String) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let key = "\(type) \(from) \(type == 4 ? to : video ?? "")"
            guard (1...4).contains(type), users.contains(from), users.contains(to),
                  type == 4 ? from != to : video.map { videos[$0] != nil } ?? false,
                  type != 2 ? !pairs.contains(key) : !content.isEmpty else {
                skippedActivities.append(id)
                continue
            }
            if type != 2 { pairs.insert(key) }
            activities.append((id, type, from, to, video))
        }
    }
}

/// Importing the tiny Parse export (shared/fixtures/parse-export-tiny) end to end.
@Suite struct ParseImporterTests {
    /// `../shared/fixtures/parse-export-tiny` from the package root.
    static let fixture: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/fixtures/parse-export-tiny").standardizedFileURL

    /// The fixture lives in the shared folder beside the repository. A developer without it
    /// sees these tests skipped; CI (CI=true) always has it, so there a missing fixture runs
    /// the tests and fails them instead of skipping silently.
    static var fixtureMissing: Bool {
        ProcessInfo.processInfo.environment["CI"] != "true"
            && !FileManager.default.fileExists(atPath: fixture.appendingPathComponent("_User.json").path)
    }

    static func runImport(_ database: any Database, directory: URL = fixture, options: ParseImporter.Options = .init()) throws -> (ImportReport, [String]) {
        var lines: [String] = []
        let report = try ParseImporter(database: database, directory: directory.path, options: options) { lines.append($0) }.run()
        return (report, lines)
    }

    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func importsTheTinyExportAndReportsEachDefect(dialect: SQLDialect) throws {
        let expected = try ExpectedImport(directory: Self.fixture)
        let db = try DialectDatabase(dialect)
        let (report, lines) = try Self.runImport(db.database)

        #expect(expected.users.count == 60 && expected.rallies == 13 && expected.videos.count == 200)
        #expect(report[.user] == .init(read: 60, imported: 60, alreadyPresent: 0, skipped: 0, notes: 0))
        #expect(report[.rally] == .init(read: 13, imported: 13, alreadyPresent: 0, skipped: 0, notes: 0))
        #expect(report[.video].imported == expected.videos.count && report[.video].skipped == 3)
        #expect(report[.activity].imported == expected.activities.count)
        #expect(report[.activity].skipped == expected.skippedActivities.count)
        #expect(report.missingFiles == [.installation] && report.fileErrors.isEmpty)
        #expect(try db.count("SELECT COUNT(*) FROM users") == 60)
        #expect(try db.count("SELECT COUNT(*) FROM rallies") == 13)
        #expect(try db.count("SELECT COUNT(*) FROM videos") == expected.videos.count)
        #expect(try db.count("SELECT COUNT(*) FROM activities") == expected.activities.count)

        // Every defect the README lists, with its objectId and why.
        let skips = Dictionary(report.entries.filter { $0.kind == .skip }.map { ($0.objectId, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(skips["BadYtId001"] == "invalid YouTube id")
        #expect(skips["DupVideo01"] == "duplicate video")
        #expect(skips["Dangling01"] == "dangling owner")
        #expect(skips["DanglingAc"] == "dangling fromUser")
        #expect(skips["BadTypeAct"] == "unknown type 9")
        #expect(Set(report.skips(of: .video).map(\.objectId)) == Set(expected.skippedVideos))
        #expect(Set(report.skips(of: .activity).map(\.objectId)) == Set(expected.skippedActivities))
        for id in ["BadYtId001", "DupVideo01", "Dangling01", "DanglingAc", "BadTypeAct"] {
            #expect(lines.contains { $0.hasPrefix("skip ") && $0.contains(id) }, "no log line for \(id)")
        }
        #expect(report.summary.contains("Video: 203 read, \(expected.videos.count) imported"))

        // Objects keep their Parse ids and times.
        #expect(try db.count("SELECT COUNT(*) FROM users WHERE id = '4qY6Nb3wWD' AND created_at = 1372840542288 AND username = 'stephane_kubica'") == 1)
        #expect(try db.count("SELECT COUNT(*) FROM rallies WHERE id = 'tOamv3It6z' AND start_date = 16086 AND end_date = 16089") == 1)
    }

    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func storedCountersEqualTheRowsTheyCount(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        _ = try Self.runImport(db.database)
        let drift = try db.database.read { connection in
            try connection.fetchAll("""
                SELECT 'video ' || v.id FROM videos v
                WHERE v.likes_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 1 AND a.video_id = v.id)
                   OR v.comments_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 2 AND a.video_id = v.id)
                   OR v.flags_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 3 AND a.video_id = v.id)
                UNION ALL
                SELECT 'user ' || u.id FROM users u
                WHERE u.followers_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 4 AND a.to_user_id = u.id)
                   OR u.following_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 4 AND a.from_user_id = u.id)
                   OR u.videos_count <> (SELECT COUNT(*) FROM videos v WHERE v.owner_id = u.id)
                UNION ALL
                SELECT 'rally ' || r.id FROM rallies r
                WHERE r.videos_count <> (SELECT COUNT(*) FROM videos v WHERE v.rally_id = r.id)
                """).map { try $0.decode(at: 0, as: String.self) }
        }
        #expect(drift == [])
        // And they are not all zero: the import counted something.
        #expect(try db.count("SELECT SUM(likes_count) FROM videos") == db.count("SELECT COUNT(*) FROM activities WHERE type = 1"))
        #expect(try db.count("SELECT SUM(likes_count) FROM videos") > 0)
        #expect(try db.count("SELECT SUM(followers_count) FROM users") > 0)
    }

    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func importedUsersLogInWithTheirOldPasswords(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        _ = try Self.runImport(db.database)
        let accounts = Accounts(database: db.database)
        let signedIn = try accounts.logIn(login: "stephane_kubica", password: "password123")
        #expect(signedIn.account.id == "4qY6Nb3wWD")
        #expect(signedIn.account.displayName == "Stéphane Kubica")
        let byEmail = try accounts.logIn(login: "TommiWaldegard@Example.com", password: "password123")
        #expect(byEmail.account.id == "ZR3qa7yEee")
        #expect(throws: AuthError.invalidCredentials) { try accounts.logIn(login: "stephane_kubica", password: "password124") }
    }

    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func homeTimelinesHoldOwnAndFolloweesVideos(dialect: SQLDialect) throws {
        let expected = try ExpectedImport(directory: Self.fixture)
        let db = try DialectDatabase(dialect)
        let (report, _) = try Self.runImport(db.database)
        var followees: [String: Set<String>] = [:]
        for activity in expected.activities where activity.type == 4 { followees[activity.from, default: []].insert(activity.to) }
        #expect(!followees.isEmpty)
        var total = 0
        for user in expected.users.sorted() {
            let authors = (followees[user] ?? []).union([user])
            let want = Set(expected.videos.filter { authors.contains($0.value) }.map(\.key))
            total += want.count
            let have = try db.database.read { connection in
                try connection.fetchAll("""
                    SELECT v.id, o.id FROM home_timeline h
                    JOIN users r ON r.seq = h.user_seq JOIN videos v ON v.seq = h.video_seq JOIN users o ON o.seq = h.owner_seq
                    WHERE r.id = \(user)
                    """).map { (try $0.decode(at: 0, as: String.self), try $0.decode(at: 1, as: String.self)) }
            }
            #expect(Set(have.map(\.0)) == want, "home timeline of \(user)")
            #expect(have.count == want.count)
            #expect(have.allSatisfy { expected.videos[$0.0] == $0.1 }, "owner_seq of \(user)")
        }
        #expect(report.homeTimelineRows == total)
        #expect(try db.count("SELECT COUNT(*) FROM home_timeline") == total)
    }

    /// A rebuild with a hot threshold of 2 followers leaves the hot accounts' videos out of
    /// their followers' home timelines, and the home feed merges them back: every reader
    /// still reads their own videos and all those of the people they follow, each once.
    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func hotAccountsStayOutOfHomeTimelinesAndTheFeedMergesThemIn(dialect: SQLDialect) throws {
        let expected = try ExpectedImport(directory: Self.fixture)
        let db = try DialectDatabase(dialect)
        _ = try Self.runImport(db.database)
        try TimelineRebuild.rebuild(in: db.database, hotFollowers: 2) { _ in }
        let hot = Set(try db.database.read { c in
            try c.fetchAll("SELECT user_id FROM feed_hot_accounts").map { try $0.decode(at: 0, as: String.self) }
        })
        var followees: [String: Set<String>] = [:]
        for activity in expected.activities where activity.type == 4 { followees[activity.from, default: []].insert(activity.to) }
        let followers = followees.values.reduce(into: [String: Int]()) { counts, targets in for t in targets { counts[t, default: 0] += 1 } }
        #expect(hot == Set(followers.filter { $0.value >= 2 }.keys), "the accounts with 2 followers or more are hot")
        #expect(!hot.isEmpty && hot.count < followers.count, "the fixture has hot accounts and others")
        let ids = Selection<String>(columns: "v.id") { try $0.next() }
        for user in expected.users.sorted() {
            let authors = (followees[user] ?? []).union([user])
            let want = Set(expected.videos.filter { authors.contains($0.value) }.map(\.key))
            let (stored, read) = try db.database.read { c in
                let seq = try c.fetchValue("SELECT seq FROM users WHERE id = \(user)", as: Int64.self) ?? -1
                let stored = try c.fetchAll("SELECT v.id FROM home_timeline h JOIN videos v ON v.seq = h.video_seq WHERE h.user_seq = \(seq)")
                    .map { try $0.decode(at: 0, as: String.self) }
                let read = try FeedStore().home(readerSeq: seq, viewer: Viewer(userID: user, canModerate: true), after: nil,
                                                limit: 1_000, selecting: ids, on: c).map(\.0)
                // One statement per hot account (as for a reader following more than SQLite
                // merges in one), pages of 2 walked to the end: the same feed.
                var walked: [String] = []
                var after: FeedStore.SeqPosition?
                while true {
                    let page = try FeedStore().home(readerSeq: seq, viewer: Viewer(userID: user, canModerate: true), after: after,
                                                    limit: 2, selecting: ids, hotArmsPerStatement: 1, on: c)
                    walked += page.map(\.0)
                    guard page.count == 2, let last = page.last else { break }
                    after = last.1
                }
                #expect(walked == read, "the home feed of \(user) in pages of 2, one statement per hot account")
                return (stored, read)
            }
            let fannedOut = want.filter { expected.videos[$0] == user || !hot.contains(expected.videos[$0] ?? "") }
            #expect(Set(stored) == fannedOut, "home_timeline of \(user): their own videos and those of followees who are not hot")
            #expect(read.count == want.count && Set(read) == want, "the home feed of \(user) holds every video once")
        }
    }

    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects, [3, 1_000])
    func followingTimelinesHoldTheMostRecentActivitiesOfFollowees(dialect: SQLDialect, depth: Int) throws {
        let db = try DialectDatabase(dialect)
        var options = ParseImporter.Options()
        options.followingDepth = depth
        let (report, _) = try Self.runImport(db.database, options: options)
        // The expected rows, from a straightforward (quadratic) query: for each reader, the
        // `depth` newest likes, comments and follows of the people they follow.
        let want = try db.database.read { connection in
            try connection.fetchAll("""
                SELECT reader, activity FROM (
                    SELECT r.seq AS reader, a.seq AS activity,
                           ROW_NUMBER() OVER (PARTITION BY r.seq ORDER BY a.created_at DESC, a.seq DESC) AS n
                    FROM activities f
                    JOIN users r ON r.id = f.from_user_id
                    JOIN activities a ON a.from_user_id = f.to_user_id AND a.type IN (1, 2, 4)
                    WHERE f.type = 4
                ) AS ranked WHERE n <= \(depth)
                """).map { "\(try $0.decode(at: 0, as: Int.self)) \(try $0.decode(at: 1, as: Int.self))" }
        }
        let have = try db.database.read { connection in
            try connection.fetchAll("SELECT user_seq, activity_seq FROM following_timeline")
                .map { "\(try $0.decode(at: 0, as: Int.self)) \(try $0.decode(at: 1, as: Int.self))" }
        }
        #expect(!want.isEmpty)
        #expect(Set(have) == Set(want))
        #expect(have.count == want.count && report.followingTimelineRows == want.count)
        // Rows carry the activity's time and actor; flags never appear.
        #expect(try db.count("""
            SELECT COUNT(*) FROM following_timeline t JOIN activities a ON a.seq = t.activity_seq JOIN users u ON u.id = a.from_user_id
            WHERE t.created_at <> a.created_at OR t.actor_seq <> u.seq OR a.type = 3
            """) == 0)
    }

    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func aSecondRunAddsNothingAndReportsEverythingAsAlreadyPresent(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        let (first, _) = try Self.runImport(db.database)
        let tables = ["users", "rallies", "videos", "activities", "home_timeline", "following_timeline"]
        let before = try tables.map { try db.count("SELECT COUNT(*) FROM \(unsafe: $0)") }
        let (second, _) = try Self.runImport(db.database)
        let after = try tables.map { try db.count("SELECT COUNT(*) FROM \(unsafe: $0)") }
        #expect(before == after)
        for parseClass in [ParseClass.user, .rally, .video, .activity] {
            #expect(second[parseClass].imported == 0, "\(parseClass)")
            #expect(second[parseClass].alreadyPresent == first[parseClass].imported, "\(parseClass)")
            #expect(second[parseClass].skipped == first[parseClass].skipped, "\(parseClass)")
        }
        #expect(second.homeTimelineRows == first.homeTimelineRows && second.followingTimelineRows == first.followingTimelineRows)
    }

    /// The recount of a second run into a database a server has used follows the rule the
    /// server keeps: `videos_count` counts the videos everyone can see, so neither a hidden
    /// video nor a banned owner's video counts (API.md "Visibility", ARCHITECTURE.md "Bans").
    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func aSecondRunCountsNeitherHiddenVideosNorBannedOwnersVideos(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        _ = try Self.runImport(db.database)
        let owners = try db.database.read { connection in
            try connection.fetchAll("SELECT owner_id FROM videos GROUP BY owner_id ORDER BY COUNT(*) DESC, owner_id LIMIT 2")
                .map { try $0.decode(at: 0, as: String.self) }
        }
        try #require(owners.count == 2)
        try db.database.write { connection in
            try connection.execute("""
                UPDATE videos SET hidden = TRUE WHERE id = (SELECT MIN(id) FROM videos WHERE owner_id = \(owners[0]))
                """)
            try connection.execute("UPDATE users SET banned_at = 1 WHERE id = \(owners[1])")
        }
        _ = try Self.runImport(db.database)
        let drift = try db.database.read { connection in
            try connection.fetchAll("""
                SELECT 'user ' || u.id FROM users u
                WHERE u.videos_count <> (SELECT COUNT(*) FROM videos v WHERE v.owner_id = u.id AND v.hidden = FALSE AND u.banned_at IS NULL)
                UNION ALL
                SELECT 'rally ' || r.id FROM rallies r
                WHERE r.videos_count <> (SELECT COUNT(*) FROM videos v WHERE v.rally_id = r.id AND v.hidden = FALSE
                                         AND v.owner_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL))
                """).map { try $0.decode(at: 0, as: String.self) }
        }
        #expect(drift == [])
        #expect(try db.count("SELECT videos_count FROM users WHERE id = \(owners[1])") == 0, "a banned owner counts no video")
    }

    @Test(.disabled(if: fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func aBrokenFileStopsThatFileOnlyAndSmallBatchesCommit(dialect: SQLDialect) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parse-broken-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["_User.json", "Rallye.json", "Video.json"] {
            try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        // Activity.json cut in the middle of its 101st object; _Installation.json with defects.
        let activities = try String(contentsOf: Self.fixture.appendingPathComponent("Activity.json"), encoding: .utf8)
        let lines = activities.split(separator: "\n", omittingEmptySubsequences: false)
        let cut = lines.prefix(101).joined(separator: "\n") + "\n" + lines[101].prefix(40)
        try Data(cut.utf8).write(to: directory.appendingPathComponent("Activity.json"))
        let installations = #"""
            {"results": [
              {"objectId":"inst1","deviceToken":"t1","deviceType":"ios","localeIdentifier":"fi-FI","user":{"__type":"Pointer","className":"_User","objectId":"4qY6Nb3wWD"},"createdAt":"2014-01-01T00:00:00.000Z"},
              {"objectId":"inst2","deviceToken":"t2","deviceType":"android","user":{"__type":"Pointer","className":"_User","objectId":"NoSuchUser"}},
              {"objectId":"inst3","deviceToken":"t1","deviceType":"ios","user":{"__type":"Pointer","className":"_User","objectId":"ZR3qa7yEee"}},
              {"objectId":"inst4","deviceToken":"t4","deviceType":"ios"},
              {"objectId":"inst5","deviceToken":"\#(String(repeating: "x", count: 3_000))","deviceType":"ios"}
            ]}
            """#
        try Data(installations.utf8).write(to: directory.appendingPathComponent("_Installation.json"))

        let db = try DialectDatabase(dialect)
        var options = ParseImporter.Options()
        options.batchSize = 7
        options.maxObjectBytes = 2_000
        let (report, _) = try Self.runImport(db.database, directory: directory, options: options)
        #expect(report.fileErrors[.activity]?.contains("ends inside an element") == true)
        #expect(report.summary.contains("FILE STOPPED EARLY"))
        #expect(report[.activity].read == 100)
        #expect(try db.count("SELECT COUNT(*) FROM activities") == report[.activity].imported)
        #expect(report[.activity].imported + report[.activity].skipped == 100)
        #expect(report[.user].imported == 60 && report[.video].imported == 200)
        let skips = Dictionary(report.skips(of: .installation).map { ($0.objectId, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(report[.installation].imported == 1)
        #expect(skips["inst2"] == "dangling user")
        #expect(skips["inst3"] == "duplicate device token")
        #expect(skips["inst4"] == "no user")
        #expect(skips["inst5"]?.contains("over the 2000-byte limit") == true)
        #expect(try db.count("SELECT COUNT(*) FROM installations WHERE id = 'inst1' AND user_id = '4qY6Nb3wWD' AND platform = 'ios' AND locale = 'fi-FI'") == 1)
    }

    @Test(arguments: DialectDatabase.dialects)
    func aMissingDirectoryIsAnError(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        #expect(throws: ImportError.self) { try Self.runImport(db.database, directory: URL(fileURLWithPath: "/nonexistent/parse-export")) }
    }

    @Test(arguments: DialectDatabase.dialects)
    func skipLinesStopAfterTheLimitButAreStillCounted(dialect: SQLDialect) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parse-many-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let users = (0..<50).map { #"{"objectId":"u\#($0)","username":"x"}"# }.joined(separator: ",")
        try Data(#"{"results":[\#(users)]}"#.utf8).write(to: directory.appendingPathComponent("_User.json"))
        let db = try DialectDatabase(dialect)
        var options = ParseImporter.Options()
        options.maxLoggedEntries = 10
        let (report, lines) = try Self.runImport(db.database, directory: directory, options: options)
        #expect(report[.user].skipped == 50)
        #expect(report.skipReasons[.user]?["invalid username"] == 50)
        #expect(lines.filter { $0.hasPrefix("skip ") }.count == 10)
        #expect(lines.contains { $0.contains("only counted") })
        #expect(report.missingFiles.contains(.video))
    }
}

/// Plain indexes set aside during the load come back, even after an import that was killed.
@Suite struct DeferredIndexesTests {
    @Test(arguments: [SQLDialect.sqlite, .postgres])
    func theMigrationsDefineThePlainIndexesOfVideosAndActivities(dialect: SQLDialect) {
        let names = Set(DeferredIndexes(dialect: dialect).definitions.keys)
        #expect(names.isSuperset(of: ["videos_owner_recent", "videos_day_recent", "videos_day_top", "activities_video", "activities_from", "activities_followers", "activities_to_recent"]))
        #expect(!names.contains("activities_one_like"), "UNIQUE indexes refuse duplicates during the load and are never set aside")
    }

    /// The keys set aside on PostgreSQL are every foreign key of videos and activities without
    /// an action, as the migrated schema has them.
    @Test(arguments: DialectDatabase.dialects.filter { $0 == .postgres })
    func theMigrationsDefineTheForeignKeysSetAside(dialect: SQLDialect) throws {
        let definitions = DeferredForeignKeys(dialect: dialect).definitions
        #expect(Set(definitions.keys) == ["videos_rally_id_fkey", "videos_owner_id_fkey", "activities_from_user_id_fkey", "activities_to_user_id_fkey", "activities_video_id_fkey"])
        #expect(DeferredForeignKeys(dialect: .sqlite).definitions.isEmpty, "SQLite keeps its keys")
        let db = try DialectDatabase(dialect)
        let catalog = try db.database.read { connection in
            try connection.fetchAll("""
                SELECT c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c
                JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE c.contype = 'f' AND n.nspname = current_schema() AND t.relname IN ('videos', 'activities')
                """).map { (try $0.decode(at: 0, as: String.self), try $0.decode(at: 1, as: String.self)) }
        }
        #expect(Set(catalog.map(\.0)) == Set(definitions.keys))
        for (name, definition) in catalog {
            // pg_get_constraintdef: "FOREIGN KEY (video_id) REFERENCES videos(id)"; ours adds a space.
            #expect(definitions[name]?.sql.hasSuffix(definition.replacingOccurrences(of: "(id)", with: " (id)")) == true, "\(name): \(definition)")
        }
    }

    @Test(arguments: DialectDatabase.dialects)
    func indexesMissingAfterAKilledImportAreRebuiltByTheNextOne(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        let indexSQL: SQL = switch dialect {
        case .sqlite: "SELECT name || ':' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        case .postgres: """
            SELECT indexname || ':' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
            UNION ALL
            SELECT c.conname || ':' || pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE n.nspname = current_schema()
            ORDER BY 1
            """
        }
        let before = try db.database.read { connection in try connection.fetchAll(indexSQL).map { try $0.decode(at: 0, as: String.self) } }
        let dropped = try db.database.write { connection in
            try DeferredIndexes(dialect: dialect).drop(on: connection) + DeferredForeignKeys(dialect: dialect).drop(on: connection)
        }
        #expect(dropped.count >= (dialect == .postgres ? 12 : 7))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parse-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ParseImporter(database: db.database, directory: directory.path) { _ in }.run()
        let after = try db.database.read { connection in try connection.fetchAll(indexSQL).map { try $0.decode(at: 0, as: String.self) } }
        #expect(after == before)
    }
}

/// The import's bulk paths give the rows of the plain ones.
@Suite struct BulkPathTests {
    static func rows(_ db: DialectDatabase) throws -> [String] {
        try db.database.read { connection in
            try connection.fetchAll("SELECT 'h', user_seq, created_at, video_seq, owner_seq FROM home_timeline UNION ALL SELECT 'f', user_seq, created_at, activity_seq, actor_seq FROM following_timeline ORDER BY 1, 2, 3, 4")
                .map { row in try (0..<5).map { $0 == 0 ? try row.decode(at: 0, as: String.self) : String(try row.decode(at: $0, as: Int.self)) }.joined(separator: " ") }
        }
    }

    @Test(.disabled(if: ParseImporterTests.fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects, [1, 7, 1_000])
    func timelinesCommittedInPartsHoldTheRowsOfOneTransaction(dialect: SQLDialect, readersPerTransaction: Int) throws {
        let db = try DialectDatabase(dialect)
        _ = try ParseImporterTests.runImport(db.database)
        let inOne = try db.database.write { connection in try TimelineRebuild.rebuild(on: connection) { _ in } }
        let want = try Self.rows(db)
        let inParts = try TimelineRebuild.rebuild(in: db.database, readersPerTransaction: readersPerTransaction) { _ in }
        #expect(inParts == inOne)
        #expect(want.count == inOne.home + inOne.following && inOne.home > 0 && inOne.following > 0)
        #expect(try Self.rows(db) == want)
    }

    @Test(.disabled(if: ParseImporterTests.fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects)
    func aRebuildStoppedHalfWayIsCompletedByTheNext(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        _ = try ParseImporterTests.runImport(db.database)
        let want = try Self.rows(db)
        // As if the import had died after the first part: the timelines hold a few readers only.
        try db.database.write { connection in
            try connection.execute("DELETE FROM home_timeline WHERE user_seq > 3")
            try connection.execute("DELETE FROM following_timeline")
        }
        _ = try ParseImporterTests.runImport(db.database)
        #expect(try Self.rows(db) == want)
    }

    /// Reading on its own thread: defects are reported in file order with the same reasons,
    /// whatever the batch size and the database (the reference is SQLite), and a second run
    /// adds nothing.
    @Test(.disabled(if: ParseImporterTests.fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects, [1, 3, 100_000])
    func theSameDefectsAreReportedInFileOrderWhateverTheBatchSize(dialect: SQLDialect, batchSize: Int) throws {
        var options = ParseImporter.Options()
        options.batchSize = batchSize
        let reference = try DialectDatabase(.sqlite)
        var referenceOptions = ParseImporter.Options()
        referenceOptions.batchSize = 20_000
        let (want, _) = try ParseImporterTests.runImport(reference.database, options: referenceOptions)
        let db = try DialectDatabase(dialect)
        let (first, _) = try ParseImporterTests.runImport(db.database, options: options)
        #expect(first.entries == want.entries)
        #expect(!first.entries.isEmpty)
        for parseClass in ParseClass.allCases { #expect(first[parseClass] == want[parseClass]) }
        let (second, _) = try ParseImporterTests.runImport(db.database, options: options)
        #expect(second.skipReasons == first.skipReasons)
        #expect(try db.count("SELECT COUNT(*) FROM activities") == first[.activity].imported)
    }
}
