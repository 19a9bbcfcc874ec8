import Foundation
import XCTest

/// A login against an account with no usable password (imported without a bcrypt hash) takes as
/// long as a wrong password against a normal account, so timing does not tell who has no password.
final class LoginTimingTests: ServerTestCase {
    /// Cost 8 (about 15 ms) makes bcrypt dominate a login's time over HTTP and scheduling noise;
    /// the high threshold keeps the repeated wrong passwords from locking anyone.
    override class var serverArguments: [String] { ["--bcrypt-cost", "8", "--lockout-threshold", "1000"] }

    override class func prepareServer(_ server: TestServer) throws {
        var export = ParseExport()
        export.users = [ParseExport.user("NoHash0001", "no_hash_user", hash: nil)]
        let folder = try export.write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = server.runCLI(["import-parse", folder.path], timeout: 120)
        guard run.status == 0 else { throw UnexpectedOutput(description: "import-parse: \(run)") }
    }

    private func secondsToFail(_ login: String) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try client.request("POST", "/v1/sessions", json: ["login": login, "password": Fake.password()])
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        assertError(result, 401, "invalid_credentials", "login \(login)")
        return seconds
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// A ratio of medians, not a speed: a no-hash login that skipped bcrypt answered in 1% of the time.
    func testALoginWithoutAPasswordHashTakesAsLongAsAWrongPassword() throws {
        let normal = try client.signup()
        _ = try secondsToFail(normal.username)  // Warm up the connection and the statements.
        var noHash: [Double] = []
        var wrong: [Double] = []
        for _ in 0..<9 {  // Alternated, so a burst of load on the machine hits both series alike.
            noHash.append(try secondsToFail("no_hash_user"))
            wrong.append(try secondsToFail(normal.username))
        }
        XCTAssertGreaterThanOrEqual(median(noHash), 0.5 * median(wrong),
                                    "median login time without a hash \(median(noHash)) s against \(median(wrong)) s with a wrong password")
    }
}
