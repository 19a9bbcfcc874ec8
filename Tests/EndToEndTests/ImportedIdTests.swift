import Foundation
import XCTest

/// Imported objectIds have Parse's shape (1 to 32 letters and digits) in every class, an id never
/// makes another account answer for a username, and `pacenote user role` takes a username only.
final class ImportedIdTests: ServerTestCase {
    static let longId = String(repeating: "a", count: 1_100)

    private static let importRun = Locked<(status: Int32, stdout: String, stderr: String)?>(nil)

    override class func prepareServer(_ server: TestServer) throws {
        var export = ParseExport()
        export.users = [
            ParseExport.user("RealBob001", "bob"),
            // The review's attack: an objectId spelled like another account's username.
            ParseExport.user("bob", "impostor"),
            ParseExport.user("RealCarl01", "carl"),
            ParseExport.user("dave000001", "dave"),
            ParseExport.user(longId, "longid_user"),
            ParseExport.user("bad-id.1", "dashed_user"),
        ]
        export.rallies = [
            ["objectId": "Rally00001", "name": "Rally Sweden", "country": "Sweden", "iniDate": "2014-02-06", "endDate": "2014-02-09"],
            ["objectId": "rally/../x", "name": "Rally Mexico", "country": "Mexico", "iniDate": "2014-03-06", "endDate": "2014-03-09"],
        ]
        func video(_ id: String, _ youtube: String) -> [String: Any] {
            ["objectId": id, "youtubeID": youtube, "title": "Stage \(youtube)", "nDay": 1,
             "rallyId": ParseExport.pointer("Rallye", "Rally00001"), "owner": ParseExport.pointer("_User", "RealBob001")]
        }
        export.videos = [video("Video00001", "dQw4w9WgXcQ"), video(String(repeating: "V", count: 33), "9bZkp7q19f0")]
        func follow(_ id: String, _ from: String, _ to: String) -> [String: Any] {
            ["objectId": id, "type": 4, "fromUser": ParseExport.pointer("_User", from), "toUser": ParseExport.pointer("_User", to)]
        }
        export.activities = [follow("Follow0001", "RealCarl01", "RealBob001"), follow("Follow 002", "RealBob001", "RealCarl01")]
        export.installations = [
            ["objectId": "Install001", "deviceType": "ios", "deviceToken": "token-1", "user": ParseExport.pointer("_User", "RealBob001")],
            ["objectId": "Install-02", "deviceType": "ios", "deviceToken": "token-2", "user": ParseExport.pointer("_User", "RealBob001")],
        ]
        let folder = try export.write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = server.runCLI(["import-parse", folder.path], timeout: 120)
        importRun.withLock { $0 = run }
    }

    private func importOutput() throws -> (status: Int32, stdout: String, stderr: String) {
        guard let run = Self.importRun.withLock({ $0 }) else { throw UnexpectedOutput(description: "the import did not run") }
        return run
    }

    func testOnlyParseShapedObjectIdsAreImportedInEveryClass() throws {
        let run = try importOutput()
        XCTAssertEqual(run.status, 0, "import-parse: \(run)")
        let ids = try server.withDatabase { db in
            (users: Set(try db.strings("SELECT id FROM users")),
             rallies: Set(try db.strings("SELECT id FROM rallies")),
             videos: Set(try db.strings("SELECT id FROM videos")),
             activities: Set(try db.strings("SELECT id FROM activities")),
             installations: Set(try db.strings("SELECT id FROM installations")))
        }
        XCTAssertTrue(ids.users.isSuperset(of: ["RealBob001", "RealCarl01", "dave000001"]), "\(ids.users)")
        XCTAssertTrue(ids.users.isDisjoint(with: ["bob", Self.longId, "bad-id.1"]),
                      "users with a dash, an over-long id or another's username as id are skipped: \(ids.users)")
        XCTAssertEqual(ids.rallies, ["Rally00001"])
        XCTAssertEqual(ids.videos, ["Video00001"], "a 33-character id is over Parse's 32")
        XCTAssertEqual(ids.activities, ["Follow0001"])
        XCTAssertEqual(ids.installations, ["Install001"])

        let summary = run.stdout
        XCTAssertTrue(summary.contains("invalid objectId"), "the summary gives the reason: \(summary)")
        XCTAssertFalse(run.stderr.contains(Self.longId), "the report does not print a 1,100-character id whole")
        for line in ["_User:", "Rallye:", "Video:", "Activity:", "_Installation:"] {
            let counts = summary.split(separator: "\n").first { $0.contains(line) } ?? ""
            XCTAssertFalse(counts.contains(" 0 skipped"), "\(line) reports its skipped objects: \(summary)")
        }
    }

    func testAnIdNeverAnswersForAnotherAccountsUsername() throws {
        let viewer = try client.signup()
        let bob = try getObject("/v1/users/bob", viewer.token)
        XCTAssertEqual(bob["id"] as? String, "RealBob001", "GET /v1/users/bob is the account named bob")
        XCTAssertEqual(bob["username"] as? String, "bob")
        XCTAssertEqual(try getObject("/v1/users/RealBob001", viewer.token)["username"] as? String, "bob", "and so is its id")
    }

    func testANewUsernameSpelledLikeAnExistingIdIsTaken() throws {
        assertError(try client.request("POST", "/v1/users", json: ["username": "RealBob001", "email": "bob.copy@example.com", "password": Fake.password()]),
                    409, "username_taken", "a username spelled like another account's id would be shadowed by it")
        assertError(try client.request("POST", "/v1/users", json: ["username": "DAVE000001", "email": "dave.copy@example.com", "password": Fake.password()]),
                    409, "username_taken", "usernames ignore case: DAVE000001 is also dave000001, an id")
    }

    func testUserRoleTakesAUsernameNeverAnId() throws {
        let byId = server.runCLI(["user", "role", "RealCarl01", "admin"])
        XCTAssertNotEqual(byId.status, 0, "an id is not a username: \(byId)")
        let viewer = try client.signup()
        XCTAssertEqual(try getObject("/v1/users/carl", viewer.token)["role"] as? String, "user", "carl's role did not change")

        let byName = server.runCLI(["user", "role", "carl", "moderator"])
        XCTAssertEqual(byName.status, 0, "user role by username: \(byName)")
        XCTAssertEqual(try getObject("/v1/users/carl", viewer.token)["role"] as? String, "moderator")
        XCTAssertEqual(try getObject("/v1/users/bob", viewer.token)["role"] as? String, "user", "nobody else changed")
    }
}
