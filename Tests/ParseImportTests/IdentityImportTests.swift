import Auth
import Foundation
import Storage
import TestSupport
import Testing
@testable import ParseImport

/// Importing `Tests/Support/fixtures/parse-export-social` (its README lists the users and ids):
/// the Facebook and Twitter ids of `authData` become `identities` rows of the imported accounts,
/// alike on SQLite and PostgreSQL; a second run adds nothing and never moves a link.
@Suite struct IdentityImportTests {
    static let fixture: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/fixtures/parse-export-social").standardizedFileURL

    /// The identities the fixture's README promises, as "provider subject user created_at".
    static let expectedIdentities = [
        "facebook 10152384756102938 Fb2014User 1394821351512",
        "facebook 10153000111222333 FbTwBoth01 1412078400000",
        "facebook 10204455667788990 FbNoMail01 1399021811000",
        "twitter 1234567890 TwNoMail01 1408779900000",
        "twitter 2244668800 TwMail0001 1402516862345",
        "twitter 987654321 FbTwBoth01 1412078400000",
    ]

    static func identities(_ database: any Database) throws -> [String] {
        try database.read { connection in
            try connection.fetchAll("SELECT provider, subject, user_id, created_at FROM identities ORDER BY provider, subject").map { row in
                "\(try row.decode(at: 0, as: String.self)) \(try row.decode(at: 1, as: String.self)) \(try row.decode(at: 2, as: String.self)) \(try row.decode(at: 3, as: Int64.self))"
            }
        }
    }

    static func runImport(_ database: any Database) throws -> (ImportReport, [String]) {
        var lines: [String] = []
        let report = try ParseImporter(database: database, directory: fixture.path, clock: DialectParityTests.FixedClock()) { lines.append($0) }.run()
        return (report, lines)
    }

    /// Every string of the fixture's `authData` but the Facebook and Twitter ids, screen names
    /// and dates: tokens, secrets, an anonymous id, a malformed `authData` (all fake ones).
    static func secrets() throws -> [String] {
        let data = try Data(contentsOf: fixture.appendingPathComponent("_User.json"))
        let users = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["results"] as? [[String: Any]] ?? []
        var secrets: [String] = []
        for user in users {
            if let malformed = user["authData"] as? String { secrets.append(malformed) }
            for case let (name, provider as [String: Any]) in user["authData"] as? [String: Any] ?? [:] {
                for case let (key, value as String) in provider where !["screen_name", "expiration_date"].contains(key) {
                    if key == "id" && ["facebook", "twitter"].contains(name) { continue }
                    secrets.append(value)
                }
            }
        }
        return secrets
    }

    @Test(arguments: DialectDatabase.dialects)
    func facebookAndTwitterIdsBecomeIdentitiesOfTheImportedAccounts(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        let (report, lines) = try Self.runImport(db.database)

        #expect(report[.user] == .init(read: 10, imported: 10, alreadyPresent: 0, skipped: 0, notes: 14))
        #expect(report.identities == .init(imported: 6, alreadyPresent: 0, notLinked: 1))
        #expect(report.summary.contains("\n  identities: 6 imported, 0 already present, 1 not linked\n"), "\(report.summary)")
        #expect(try Self.identities(db.database) == Self.expectedIdentities)

        // The duplicated Facebook id stays with its first holder, and the second user is told.
        let identityEntries = report.entries.filter { $0.kind == .identity }.map(\.description)
        #expect(identityEntries == ["identity _User FbDupl0001: facebook 10152384756102938: linked to another account (Fb2014User); not linked"])
        #expect(lines.contains(identityEntries[0]), "the entry is logged")
        let notes = Dictionary(grouping: report.entries.filter { $0.kind == .note }, by: \.objectId).mapValues { $0.map(\.reason) }
        #expect(notes["BadAuth001"] == ["authData is not an object; no sign-in identity kept"])
        #expect(notes["AnonUser01"]?.contains("authData.anonymous ignored (only facebook and twitter ids are kept)") == true)
        #expect(notes["BadFbId001"]?.contains("authData.facebook.id is not a Facebook user id (1 to 255 digits); not kept") == true)
        #expect(notes["BadFbId001"]?.contains { $0.contains("twitter") } == false, "an unlinked (null) provider says nothing")
        #expect(notes["PwOnly0001"] == nil)

        // The accounts themselves are imported as without authData.
        let users = try db.database.read { connection in
            try Dictionary(uniqueKeysWithValues: connection.fetchAll("SELECT id, email, password_hash FROM users").map { row in
                (try row.decode(at: 0, as: String.self), "\(try row.decode(at: 1, as: String.self)) \(try row.decode(at: 2, as: String.self))")
            })
        }
        #expect(users["Fb2014User"] == "fb2014@example.com \(PasswordHasher.noPassword)")
        #expect(users["FbNoMail01"] == "FbNoMail01@users.invalid \(PasswordHasher.noPassword)")
        #expect(users["TwNoMail01"] == "TwNoMail01@users.invalid \(PasswordHasher.noPassword)")
        #expect(users["FbDupl0001"] == "fb_duplicate@example.com \(PasswordHasher.noPassword)")
        #expect(users["BadAuth001"] == "bad_authdata@example.com \(MapperTests.hash)")
        #expect(users.count == 10)
        #expect(try db.count("SELECT COUNT(*) FROM videos WHERE owner_id = 'Fb2014User' AND id IN ('Fb14Video1', 'Fb14Video2', 'Fb14Video3')") == 3)
        let signedIn = try Accounts(database: db.database).logIn(login: "password_only", password: "password123")
        #expect(signedIn.account.id == "PwOnly0001")

        // No token or secret of authData anywhere: the report, the log, the stored rows.
        let secrets = try Self.secrets()
        #expect(secrets.count == 19 && secrets.allSatisfy { $0.contains("Fake") }, "\(secrets)")
        let written = report.entries.map(\.description) + lines + [report.summary]
        for secret in secrets {
            #expect(!written.contains { $0.contains(secret) }, "\(secret) reached the report or the log")
        }
        #expect(!written.contains { $0.contains("Fake") })
        let stored = try db.database.read { connection in
            try connection.fetchAll("SELECT id, username, email, display_name, password_hash FROM users").flatMap { row in
                try (0..<5).map { try row.decode(at: $0, as: String.self) }
            }
        }
        #expect(!stored.contains { $0.contains("Fake") })
    }

    @Test(arguments: DialectDatabase.dialects)
    func aSecondRunAddsNothingAndNeverMovesALink(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        let (first, _) = try Self.runImport(db.database)
        let (second, _) = try Self.runImport(db.database)
        #expect(second.identities == .init(imported: 0, alreadyPresent: 6, notLinked: 1))
        #expect(second.summary.contains("\n  identities: 0 imported, 6 already present, 1 not linked\n"))
        #expect(second.entries.filter { $0.kind == .identity } == first.entries.filter { $0.kind == .identity })
        #expect(try Self.identities(db.database) == Self.expectedIdentities)

        // Since the first run: FbTwBoth01's Twitter id now signs into PwOnly0001, and TwNoMail01
        // linked another Twitter account (as the sign-in routes could have done).
        try db.database.write { connection in
            try connection.execute("DELETE FROM identities WHERE provider = 'twitter' AND subject IN ('987654321', '1234567890')")
            try connection.execute("INSERT INTO identities (provider, subject, user_id, created_at) VALUES ('twitter', '987654321', 'PwOnly0001', 1)")
            try connection.execute("INSERT INTO identities (provider, subject, user_id, created_at) VALUES ('twitter', '5555', 'TwNoMail01', 2)")
        }
        let changed = try Self.identities(db.database)
        let (third, _) = try Self.runImport(db.database)
        #expect(try Self.identities(db.database) == changed, "no link moved, none added")
        #expect(third.identities == .init(imported: 0, alreadyPresent: 4, notLinked: 3))
        let entries = third.entries.filter { $0.kind == .identity }.map(\.description)
        #expect(entries == [
            "identity _User TwNoMail01: twitter 1234567890: the account has another Twitter identity; not linked",
            "identity _User FbTwBoth01: twitter 987654321: linked to another account (PwOnly0001); not linked",
            "identity _User FbDupl0001: facebook 10152384756102938: linked to another account (Fb2014User); not linked",
        ])

        // An account imported before identities were kept gets them from the next run.
        _ = try db.database.write { connection in try connection.execute("DELETE FROM identities") }
        let (fourth, _) = try Self.runImport(db.database)
        #expect(fourth.identities == .init(imported: 6, alreadyPresent: 0, notLinked: 1))
        #expect(fourth[.user].alreadyPresent == 10)
        #expect(try Self.identities(db.database) == Self.expectedIdentities)
    }

    /// The same report and rows on PostgreSQL as on SQLite (the reference).
    @Test(arguments: DialectDatabase.dialects.filter { $0 == .postgres })
    func bothDatabasesImportTheSameIdentities(dialect: SQLDialect) throws {
        let reference = try DialectDatabase(.sqlite)
        let (want, _) = try Self.runImport(reference.database)
        let db = try DialectDatabase(dialect)
        let (have, _) = try Self.runImport(db.database)
        #expect(DialectParityTests.reportLines(have) == DialectParityTests.reportLines(want))
        #expect(try Self.identities(db.database) == Self.identities(reference.database))
    }
}
