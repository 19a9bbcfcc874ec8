import Community
import Foundation
import Storage
import Telemetry
import TestSupport
import Testing
@testable import ParseImport

/// The import gives the same report and the same rows on PostgreSQL as on SQLite, whatever the
/// batch size. The PostgreSQL backend checks thousands of rows per statement, so an export whose
/// rows collide with each other (and with rows of earlier batches) is where it could differ.
@Suite struct DialectParityTests {
    /// What a database holds after an import, by ids (seqs are each database's own), one
    /// sorted list of rows per table; the timelines with their readers, items and authors.
    static func contents(_ database: any Database) throws -> [String: [String]] {
        let queries: [String: SQL] = [
            "users": """
                SELECT id, username, username_key, email, email_key, email_verified, display_name, password_hash, role,
                       followers_count, following_count, videos_count, created_at, updated_at FROM users
                """,
            "rallies": "SELECT id, name, country, start_date, end_date, videos_count, created_at, updated_at FROM rallies",
            "videos": """
                SELECT id, youtube_id, title, description, rally_id, day, owner_id, hidden, likes_count, comments_count,
                       flags_count, created_at, updated_at FROM videos
                """,
            "activities": "SELECT id, type, from_user_id, to_user_id, video_id, content, created_at FROM activities",
            "installations": "SELECT id, user_id, platform, device_token, locale, created_at, updated_at FROM installations",
            "identities": "SELECT provider, subject, user_id, created_at FROM identities",
            "home": """
                SELECT r.id, h.created_at, v.id, o.id FROM home_timeline h
                JOIN users r ON r.seq = h.user_seq JOIN videos v ON v.seq = h.video_seq JOIN users o ON o.seq = h.owner_seq
                """,
            "following": """
                SELECT r.id, t.created_at, a.id, o.id FROM following_timeline t
                JOIN users r ON r.seq = t.user_seq JOIN activities a ON a.seq = t.activity_seq JOIN users o ON o.seq = t.actor_seq
                """,
        ]
        return try database.read { connection in
            try queries.mapValues { query in
                try connection.fetchAll(query).map { row in row.values.map(String.init(describing:)).joined(separator: " | ") }.sorted()
            }
        }
    }

    /// The report without its timings.
    static func reportLines(_ report: ImportReport) -> [String] {
        report.entries.map(\.description) + ParseClass.allCases.map { "\($0): \(report[$0])" }
            + report.skipReasons.flatMap { parseClass, reasons in reasons.map { "\(parseClass) \($0.key): \($0.value)" } }.sorted()
            + report.fileErrors.map { "\($0.key): \($0.value)" }.sorted()
            + ["\(report.missingFiles)", "\(report.homeTimelineRows) \(report.followingTimelineRows)", "\(report.identities)"]
    }

    /// The import time of objects without dates, the same on every run.
    struct FixedClock: WallClock {
        func nowMillis() -> Int64 { 1_700_000_000_000 }
    }

    static func runImport(_ database: any Database, directory: URL, batchSize: Int = ParseImporter.Options().batchSize) throws -> ImportReport {
        var options = ParseImporter.Options()
        options.batchSize = batchSize
        return try ParseImporter(database: database, directory: directory.path, options: options, clock: FixedClock()) { _ in }.run()
    }

    @Test(arguments: DialectDatabase.dialects, [1, 4, 1_000])
    func collidingRowsAreReportedAndWrittenAlikeOnBothDatabases(dialect: SQLDialect, batchSize: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parse-colliding-\(UUID().uuidString)")
        try CollidingExport.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }

        let reference = try DialectDatabase(.sqlite)
        let wantFirst = try Self.runImport(reference.database, directory: directory)
        let wantContents = try Self.contents(reference.database)
        let wantSecond = try Self.runImport(reference.database, directory: directory)

        let db = try DialectDatabase(dialect)
        let first = try Self.runImport(db.database, directory: directory, batchSize: batchSize)
        #expect(Self.reportLines(first) == Self.reportLines(wantFirst))
        let contents = try Self.contents(db.database)
        for table in wantContents.keys.sorted() {
            #expect(contents[table] == wantContents[table], "\(table) on \(dialect) with batches of \(batchSize)")
        }
        let second = try Self.runImport(db.database, directory: directory, batchSize: batchSize)
        #expect(Self.reportLines(second) == Self.reportLines(wantSecond))
        #expect(try Self.contents(db.database) == wantContents, "a second run changes nothing")

        // The export's collisions, as the SQLite backend reports them.
        let skips = Dictionary(wantFirst.entries.filter { $0.kind == .skip }.map { ("\($0.parseClass.rawValue) \($0.objectId)", $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(skips["_User alice02"] == "duplicate username")
        #expect(skips["_User alice03"] == "duplicate email")
        #expect(skips["_User alice04"] == "duplicate email", "SQLite checks the email's UNIQUE index first")
        #expect(skips["_User carol1"] == "username is another account's objectId")
        #expect(skips["_User dave"] == "objectId is another account's username")
        #expect(skips["_User ee1"] == "objectId is another account's username")
        #expect(skips["_User ee2"] == nil, "its email's first holder was skipped, so it is imported")
        #expect(skips["Video vdupB"] == "duplicate video")
        #expect(skips["Video vnorally"] == "dangling rally")
        #expect(skips["Video vlateday"] == "nDay 5 outside the rally's 3 days")
        #expect(skips["Video vghost"] == "dangling owner")
        #expect(skips["Video vskipped"] == "dangling owner")
        #expect(skips["Video vnul"] == "dangling owner")
        #expect(skips["Activity likeB"] == "duplicate")
        #expect(skips["Activity followB"] == "duplicate")
        #expect(skips["Activity flagB"] == "duplicate")
        #expect(skips["Activity commentB"] == nil, "two comments on one video are two comments")
        #expect(skips["Activity nulfrom"] == "dangling fromUser")
        #expect(skips["Activity nulvideo"] == "dangling video")
        #expect(skips["Activity toskipped"] == "dangling toUser")
        #expect(skips["_Installation inst2"] == "duplicate device token")
        #expect(skips["_Installation inst3"] == "dangling user")
        #expect(skips["_Installation inst5"] == "duplicate device token", "inst4's token lost its NUL")
        #expect(wantFirst[.user].alreadyPresent == 1 && wantFirst[.video].alreadyPresent == 1 && wantFirst[.activity].alreadyPresent == 1)

        // The identities of authData: the first holder of an id keeps it, skipped users link nothing.
        let notLinked = Dictionary(wantFirst.entries.filter { $0.kind == .identity }.map { ($0.objectId, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(notLinked == [
            "nrm5": "facebook 111: linked to another account (alice01); not linked",
            "nrm7": "twitter 444: linked to another account (nrm6); not linked",
            "nrm12": "facebook 777: linked to another account (nrm11); not linked",
        ])
        #expect(wantFirst.identities == .init(imported: 6, alreadyPresent: 0, notLinked: 3))
        #expect(wantSecond.identities == .init(imported: 0, alreadyPresent: 6, notLinked: 3))
        #expect(wantContents["identities"]?.count == 6)
        #expect(try reference.count("SELECT COUNT(*) FROM identities WHERE provider = 'twitter' AND subject = '444' AND user_id = 'nrm6'") == 1)
        #expect(try reference.count("SELECT COUNT(*) FROM identities WHERE provider = 'facebook' AND subject = '333' AND user_id = 'twin1'") == 1,
                "the second twin1 is the account twin1")
        #expect(try reference.count("SELECT COUNT(*) FROM identities WHERE user_id IN ('alice02', 'alice03')") == 0, "skipped users link nothing")
    }

    /// PostgreSQL runs a write transaction again after a serialization failure or a lost
    /// session: the import's transactions then write and report the same rows as run once.
    @Test(arguments: DialectDatabase.dialects, [3, 1_000])
    func transactionsRunTwiceWriteAndReportTheSame(dialect: SQLDialect, batchSize: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parse-twice-\(UUID().uuidString)")
        try CollidingExport.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try DialectDatabase(.sqlite)
        let want = try Self.runImport(reference.database, directory: directory)
        let db = try DialectDatabase(dialect)
        let twice = RunsEveryWriteTwice(db.database)
        let report = try Self.runImport(twice, directory: directory, batchSize: batchSize)
        #expect(twice.reruns > 10, "every transaction ran twice")
        #expect(Self.reportLines(report) == Self.reportLines(want))
        #expect(try Self.contents(db.database) == Self.contents(reference.database))
    }

    /// The following pass of the timeline rebuild (temporary tables, cutoffs) and the home pass
    /// give the same timelines on both databases, in one transaction and in parts.
    @Test(.disabled(if: ParseImporterTests.fixtureMissing, "shared/fixtures/parse-export-tiny is not beside the package; the fixture import is skipped"),
          arguments: DialectDatabase.dialects, [3, 1_000])
    func timelinesRebuiltOnBothDatabasesAreTheSame(dialect: SQLDialect, depth: Int) throws {
        var options = ParseImporter.Options()
        options.followingDepth = depth
        let reference = try DialectDatabase(.sqlite)
        _ = try ParseImporterTests.runImport(reference.database, options: options)
        let db = try DialectDatabase(dialect)
        _ = try ParseImporterTests.runImport(db.database, options: options)
        func timelines(_ database: any Database) throws -> [String] {
            let contents = try Self.contents(database)
            return (contents["home"] ?? []).map { "home " + $0 } + (contents["following"] ?? []).map { "following " + $0 }
        }
        let want = try timelines(reference.database)
        #expect(want.contains { $0.hasPrefix("home ") } && want.contains { $0.hasPrefix("following ") })
        #expect(try timelines(db.database) == want, "after the import")

        let wantCounts = try reference.database.write { connection in try TimelineRebuild.rebuild(on: connection, followingDepth: depth) { _ in } }
        let counts = try db.database.write { connection in try TimelineRebuild.rebuild(on: connection, followingDepth: depth) { _ in } }
        #expect(counts == wantCounts)
        #expect(try timelines(db.database) == want, "rebuilt in one transaction")
        let inParts = try TimelineRebuild.rebuild(in: db.database, followingDepth: depth, readersPerTransaction: 7) { _ in }
        #expect(inParts == wantCounts)
        #expect(try timelines(db.database) == want, "rebuilt in parts")
    }
}

/// A small export whose defects are collisions: between rows of one file, with rows of the
/// files before, and rows that only collide with a row that was itself skipped. Normal rows
/// sit between them, so that a backend writing in bulk has runs to write.
enum CollidingExport {
    static func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func file(_ name: String, _ objects: [String]) throws {
            try Data("{\"results\": [\n\(objects.joined(separator: ",\n"))\n]}".utf8).write(to: directory.appendingPathComponent(name))
        }
        let hash = "$2b$10$" + String(repeating: "a", count: 53)
        func user(_ id: String, _ username: String, _ email: String, authData: String? = nil) -> String {
            let auth = authData.map { #","authData":\#($0)"# } ?? ""
            return #"{"objectId":"\#(id)","username":"\#(username)","email":"\#(email)","bcryptPassword":"\#(hash)"\#(auth),"createdAt":"2015-01-01T00:00:00.000Z"}"#
        }
        func facebook(_ id: String) -> String { #"{"facebook":{"id":"\#(id)","access_token":"tok"}}"# }
        func twitter(_ id: String) -> String { #"{"twitter":{"id":"\#(id)","auth_token":"tok","auth_token_secret":"secret"}}"# }
        func pointer(_ id: String) -> String { #"{"__type":"Pointer","className":"_User","objectId":"\#(id)"}"# }
        let normal = (0..<30).map { "nrm\($0)" }
        // Identities of authData: a Facebook id held by alice01 then nrm5, a Twitter id by nrm6
        // then nrm7 (neighbours: one statement on PostgreSQL), one id per provider on nrm8, and
        // 777 on nrm11 then nrm12, with ids of skipped users between.
        let identities = [
            5: facebook("111"), 6: twitter("444"), 7: twitter("444"),
            8: #"{"facebook":{"id":"555"},"twitter":{"id":555}}"#, 11: facebook("777"), 12: facebook("777"),
        ]
        func normals(_ range: Range<Int>) -> [String] {
            range.map { user(normal[$0], "normal_\($0)", "normal\($0)@example.com", authData: identities[$0]) }
        }

        try file("_User.json", normals(0..<5) + [
            user("alice01", "alice", "alice@example.com", authData: facebook("111")),
            user("alice02", "ALICE", "alice2@example.com", authData: facebook("222")),
            user("alice03", "alice3", "Alice@Example.com", authData: facebook("111")),
        ] + normals(5..<10) + [
            user("alice04", "Alice", "ALICE@example.com"),
            user("Bobby", "bob_1", "bobby@example.com"),
            user("carol1", "Bobby", "carol@example.com"),
            user("d1", "Dave", "d1@example.com"),
            user("dave", "x_dave", "dave@example.com"),
            user("pre1", "EE1", "pre1@example.com"),
            user("ee1", "eve", "eve@example.com"),
            user("ee2", "eve2", "eve@example.com"),
            user("twin1", "twin_a", "twin_a@example.com"),
        ] + normals(10..<20) + [
            user("twin1", "twin_b", "twin_b@example.com", authData: facebook("333")),
            user("selfname", "selfname", "not an email"),
            #"{"objectId":"nohash","username":"no_hash","email":"nohash@example.com"}"#,
        ] + normals(20..<30))

        func rally(_ id: String, _ start: String, _ end: String) -> String {
            #"{"objectId":"\#(id)","name":"Rally \#(id)","country":"FI","iniDate":"\#(start)","endDate":"\#(end)"}"#
        }
        try file("Rallye.json", [rally("r1", "2015-08-01", "2015-08-03"), rally("r2", "2015-09-01", "2015-09-10"), rally("r1", "2016-01-01", "2016-01-02")])

        func video(_ id: String, _ youtube: String, owner: String, rally: String = "r2", day: Int = 1, minute: Int = 0) -> String {
            #"{"objectId":"\#(id)","youtubeID":"\#(youtube)","title":"Video \#(id)","owner":\#(pointer(owner)),"rallyId":{"__type":"Pointer","className":"Rallye","objectId":"\#(rally)"},"nDay":\#(day),"createdAt":"2015-09-01T10:\#(String(format: "%02d", minute)):00.000Z"}"#
        }
        let normalVideos = (0..<40).map { index in video("v\(index)", "yt" + String(format: "%09d", index), owner: normal[index % 30], minute: index) }
        try file("Video.json", Array(normalVideos[0..<10]) + [
            video("vdupA", "AAAAAAAAAAA", owner: "alice01"),
            video("vdupB", "AAAAAAAAAAA", owner: "nrm1"),
            video("vnorally", "BBBBBBBBBBB", owner: "nrm1", rally: "nope"),
            video("vlateday", "CCCCCCCCCCC", owner: "nrm1", rally: "r1", day: 5),
        ] + Array(normalVideos[10..<25]) + [
            video("vghost", "DDDDDDDDDDD", owner: "ghost"),
            video("vskipped", "EEEEEEEEEEE", owner: "alice02"),
            video("vnul", "FFFFFFFFFFF", owner: "nrm\\u00001"),
            video("vdupA", "GGGGGGGGGGG", owner: "nrm2"),
        ] + Array(normalVideos[25..<40]))

        func activity(_ id: String, _ type: Int, from: String, to: String, video: String? = nil, content: String? = nil, minute: Int = 0) -> String {
            let videoField = video.map { #","video":{"__type":"Pointer","className":"Video","objectId":"\#($0)"}"# } ?? ""
            let contentField = content.map { #","content":"\#($0)""# } ?? ""
            return #"{"objectId":"\#(id)","type":\#(type),"fromUser":\#(pointer(from)),"toUser":\#(pointer(to))\#(videoField)\#(contentField),"createdAt":"2015-09-02T10:\#(String(format: "%02d", minute % 60)):00.000Z"}"#
        }
        var activities: [String] = []
        for index in 0..<30 {
            for step in 1...3 { activities.append(activity("f\(index)x\(step)", 4, from: normal[index], to: normal[(index + step) % 30], minute: index + step)) }
            activities.append(activity("l\(index)", 1, from: normal[index], to: normal[(index + 5) % 30], video: "v\((index + 5) % 40)", minute: index))
            activities.append(activity("c\(index)", 2, from: normal[index], to: normal[(index + 7) % 30], video: "v\((index + 7) % 40)", content: "nice \(index)", minute: index + 1))
            switch index {
            case 4:
                activities += [
                    activity("likeA", 1, from: "nrm1", to: "nrm2", video: "v2", minute: 40),
                    activity("likeB", 1, from: "nrm1", to: "nrm2", video: "v2", minute: 41),
                    activity("followA", 4, from: "nrm3", to: "alice01", minute: 42),
                    activity("followB", 4, from: "nrm3", to: "alice01", minute: 43),
                ]
            case 11:
                activities += [
                    activity("flagA", 3, from: "nrm4", to: "nrm3", video: "v3", content: "spam", minute: 44),
                    activity("commentA", 2, from: "nrm4", to: "nrm3", video: "v3", content: "first", minute: 45),
                    activity("commentB", 2, from: "nrm4", to: "nrm3", video: "v3", content: "second", minute: 46),
                    activity("nulfrom", 1, from: "nrm\\u00005", to: "nrm3", video: "v3", minute: 47),
                    activity("nulvideo", 1, from: "nrm5", to: "nrm3", video: "v\\u00003", minute: 48),
                    activity("toskipped", 4, from: "nrm6", to: "alice02", minute: 49),
                    activity("l11", 1, from: "nrm8", to: "nrm9", video: "v9", minute: 50),
                ]
            case 20:
                activities += [
                    activity("flagB", 3, from: "nrm4", to: "nrm3", video: "v3", minute: 51),
                    activity("selfie", 4, from: "nrm7", to: "nrm7", minute: 52),
                ]
            default:
                break
            }
        }
        try file("Activity.json", activities)

        func installation(_ id: String, _ token: String, user: String) -> String {
            #"{"objectId":"\#(id)","deviceToken":"\#(token)","deviceType":"ios","localeIdentifier":"fi-FI","user":\#(pointer(user))}"#
        }
        try file("_Installation.json", [
            installation("inst1", "tok1", user: "nrm0"),
            installation("inst2", "tok1", user: "nrm1"),
            installation("inst3", "tok3", user: "ghost"),
            installation("inst4", "tok\\u0000x", user: "nrm2"),
            installation("inst5", "tokx", user: "nrm3"),
            installation("inst1", "tok9", user: "nrm4"),
        ])
    }
}

/// A database whose every write closure runs once, is rolled back, and runs again: what
/// PostgreSQL does after a serialization failure.
final class RunsEveryWriteTwice: Database, @unchecked Sendable {
    // @unchecked: `reruns` is only touched by the one thread that imports.
    private struct RolledBack: Error {}
    private let inner: any Database
    private(set) var reruns = 0

    init(_ inner: any Database) { self.inner = inner }

    var dialect: SQLDialect { inner.dialect }
    var readerUsage: (inUse: Int, total: Int) { inner.readerUsage }
    func read<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T { try inner.read(body) }
    func ping() -> Bool { inner.ping() }
    func close() { inner.close() }

    func write<T>(isolation: WriteIsolation, _ body: (any DatabaseConnection) throws -> T) throws -> T {
        do {
            _ = try inner.write(isolation: isolation) { connection -> T in
                _ = try body(connection)
                throw RolledBack()
            }
        } catch is RolledBack {
            reruns += 1
        }
        return try inner.write(isolation: isolation, body)
    }
}
