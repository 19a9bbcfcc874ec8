import Foundation
import XCTest

/// bcrypt hashes whose cost is above the ceiling (here max(12, --bcrypt-cost 4) = 12) are refused
/// on import, the account kept without a usable password, and refused before any verification,
/// so one imported account can no longer hold a hashing thread for seconds per login.
final class ImportedHashCostTests: ServerTestCase {
    /// `password123` at cost 13: one step above the ceiling, still quick enough to compute if it were verified.
    static let cost13Hash = "$2b$13$exyBBn/.sCyyA0zNl2j89uyTYYvzlN8ArGjuZ3mvch7U.AFUNwYfC"
    /// A well-formed hash at cost 17 (6.8 s per verification on the reviewer's machine); never verified here.
    static let cost17Hash = "$2y$17$" + String(repeating: "A", count: 53)

    private static let importRun = Locked<(status: Int32, stdout: String, stderr: String)?>(nil)

    override class func prepareServer(_ server: TestServer) throws {
        var export = ParseExport()
        export.users = [
            ParseExport.user("Cost10User", "cost_ten"),
            ParseExport.user("Cost13User", "cost_thirteen", hash: cost13Hash),
            ParseExport.user("Cost17User", "cost_seventeen", hash: cost17Hash),
        ]
        let folder = try export.write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = server.runCLI(["import-parse", folder.path], timeout: 120)
        importRun.withLock { $0 = run }

        // An account whose cost-13 hash was stored before the ceiling existed (an older import):
        // created normally, then its hash replaced in the database (the server is not running).
        let create = server.runCLI(["user", "create", "--username", "stored_thirteen", "--email", "stored13@example.com",
                                    "--password", ParseExport.password])
        guard create.status == 0 else { throw UnexpectedOutput(description: "user create: \(create)") }
        try server.withDatabase { db in
            try db.write("UPDATE users SET password_hash = \(cost13Hash) WHERE username_key = \("stored_thirteen")")
        }
    }

    private func importOutput() throws -> (status: Int32, stdout: String, stderr: String) {
        guard let run = Self.importRun.withLock({ $0 }) else { throw UnexpectedOutput(description: "the import did not run") }
        return run
    }

    func testTheImportReportsHashesAboveTheCeilingAndKeepsTheAccounts() throws {
        let run = try importOutput()
        XCTAssertEqual(run.status, 0, "import-parse: \(run)")
        let output = run.stdout + "\n" + run.stderr
        for id in ["Cost13User", "Cost17User"] {
            let line = output.split(separator: "\n").first { $0.contains(id) }
            XCTAssertNotNil(line, "the import names \(id), whose hash it refused: \(output)")
            XCTAssertTrue(line?.contains("cost") ?? false, "and says it is the bcrypt cost: \(line ?? "")")
        }
        XCTAssertFalse(output.contains("Cost10User"), "a cost-10 hash is imported without a note: \(output)")
        let viewer = try client.signup()
        for username in ["cost_ten", "cost_thirteen", "cost_seventeen"] {
            XCTAssertEqual(try getObject("/v1/users/\(username)", viewer.token)["username"] as? String, username,
                           "the account \(username) is imported")
        }
    }

    func testAnImportedHashAboveTheCeilingDoesNotLogIn() throws {
        XCTAssertEqual(try client.login("cost_ten", ParseExport.password).user["username"] as? String, "cost_ten",
                       "an imported cost-10 hash still logs in with the old password")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": "cost_thirteen", "password": ParseExport.password]),
                    401, "invalid_credentials", "the right password against a refused cost-13 hash")
        assertError(try client.request("POST", "/v1/sessions", json: ["login": "cost_seventeen", "password": ParseExport.password]),
                    401, "invalid_credentials", "a cost-17 hash")
    }

    func testAStoredHashAboveTheCeilingIsRefusedBeforeVerification() throws {
        assertError(try client.request("POST", "/v1/sessions", json: ["login": "stored_thirteen", "password": ParseExport.password]),
                    401, "invalid_credentials", "a cost-13 hash already in the database, with the right password")
    }
}

struct UnexpectedOutput: Error, CustomStringConvertible {
    let description: String
}
