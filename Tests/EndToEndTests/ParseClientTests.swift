import Foundation
import TestSupport
import XCTest

/// The Parse facade as a user meets it: driven by qs-parse-rest, a Parse client no one here
/// wrote (Tests/Support/parse_client_test.py), and fuzzed (Tests/Support/parse_fuzz.py), both
/// in the Python of scripts/python-env against this server on the imported Parse export.
final class ParseClientTests: ServerTestCase {
    static let appID = "vidwrc-client"
    static let restKey = "vidwrc-rest-key"

    override class var serverArguments: [String] { ["--parse-app-id", appID, "--parse-rest-key", restKey, "--bcrypt-cost", "4"] }

    override class func prepareServer(_ server: TestServer) throws {
        try ImportTests.importFixture(into: server)
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PARSE_SERVER"] = "http://127.0.0.1:\(server.port)"
        environment["PARSE_API_ROOT"] = "http://127.0.0.1:\(server.port)/parse"
        environment["PARSE_APP_ID"] = Self.appID
        environment["PARSE_REST_KEY"] = Self.restKey
        // markku.evans follows 29 accounts in the export; Rally Italia Sardegna's day 1 has 11 videos.
        environment["PARSE_USER"] = "markku.evans"
        environment["PARSE_PASSWORD"] = ImportTests.fixturePassword
        environment["PARSE_RALLY"] = "S6Mt6jB2H7"
        environment["PARSE_DAY"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        return environment
    }

    func testTheOriginalAppsFlowsThroughQsParseRest() throws {
        let run = try runScript("parse_client_test.py", timeout: 240)
        print(run.log)
        XCTAssertEqual(run.status, 0, run.log)
        for check in ["signup_and_me", "login_with_an_imported_users_old_password", "activities_and_videos_of_the_people_i_follow",
                      "saves_likes_comments_follows_and_deletes", "batch", "installations", "logout"] {
            XCTAssertTrue(run.log.contains("ok \(check)\n"), "\(check) did not pass:\n\(run.log)")
        }
    }

    func testFuzzedInputsAreNeverA5xxNorAHang() throws {
        let run = try runScript("parse_fuzz.py", timeout: 540)
        print(run.log)
        XCTAssertEqual(run.status, 0, run.log)
        XCTAssertTrue(run.log.contains("ok test_batches"), run.log)
    }

    /// Runs Tests/Support/`script` in scripts/python-env's Python; its status and its output.
    private func runScript(_ script: String, timeout: TimeInterval) throws -> (status: Int32, log: String) {
        guard let python = PythonScript.python() else { return (-1, "") }
        return try PythonScript.run("Tests/Support/\(script)", python: python, environment: environment, timeout: timeout)
    }
}
