import Foundation
import XCTest

/// Every command and subcommand answers `--help` (and `-h`) with its options on stdout and exits 0,
/// the way an operator finds out what a command takes.
final class CommandHelpTests: XCTestCase {
    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        TestServer.run(binary: try TestServer.locateBinary(), arguments: arguments, timeout: 30)
    }

    func testEveryCommandAnswersHelpWithItsOptions() throws {
        // Each command with options only it takes (and one every database command takes).
        let cases: [(command: [String], mustList: [String])] = [
            (["serve"], ["--listen", "--public-read", "--bcrypt-cost", "--session-lifetime", "--fanout-sync-limit", "--data-dir", "--outbox-workers",
                         "--moderation-webhook-url", "--moderation-webhook-secret"]),
            (["migrate"], ["--data-dir", "--database"]),
            (["user"], ["user create", "user role", "user export"]),
            (["user", "create"], ["--username", "--email", "--password", "--role", "--data-dir"]),
            (["user", "role"], ["USERNAME ROLE", "--data-dir"]),
            (["user", "export"], ["USERNAME", "--public-url", "--data-dir", "--database"]),
            (["backup"], ["FILE", "--data-dir"]),
            (["import-parse"], ["DIR", "--files", "--batch-size", "--following-depth", "--data-dir"]),
            (["announce"], ["--title", "--body", "--title-es", "--body-es", "--send-at", "--data-dir", "--database"]),
        ]
        for (command, mustList) in cases {
            for flag in ["--help", "-h"] {
                let label = (["pacenote"] + command + [flag]).joined(separator: " ")
                let result = try run(command + [flag])
                XCTAssertEqual(result.status, 0, "\(label): \(result.stderr)")
                XCTAssertTrue(result.stdout.hasPrefix("usage: pacenote \(command.joined(separator: " "))"), "\(label):\n\(result.stdout)")
                for item in mustList {
                    XCTAssertTrue(result.stdout.contains(item), "\(label) lists \(item):\n\(result.stdout)")
                }
                XCTAssertEqual(result.stderr, "", label)
            }
        }
    }

    func testHelpWinsOverOtherArgumentsAndDoesNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-help-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // With --help, even a full `user create` line creates nothing, and opens no database.
        let result = try run(["user", "create", "--username", "somebody", "--email", "s@example.com", "--password", "password123",
                              "--data-dir", directory.path, "--help"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("usage: pacenote user create"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path), "no data directory was made")
        // `pacenote help COMMAND` is the same as `pacenote COMMAND --help`.
        let viaHelp = try run(["help", "import-parse"])
        XCTAssertEqual(viaHelp.status, 0)
        XCTAssertEqual(viaHelp.stdout, try run(["import-parse", "--help"]).stdout)
        // A flag's value that happens to be "-h" is a value, not a request for help.
        let value = try run(["backup", "--log-level", "-h"])
        XCTAssertEqual(value.status, 2, "backup without FILE is still a usage error")
        XCTAssertFalse(value.stdout.contains("usage: pacenote backup"), value.stdout)
        let overview = try run(["help"])
        XCTAssertEqual(overview.status, 0)
        for command in ["serve", "migrate", "user", "backup", "import-parse", "announce"] {
            XCTAssertTrue(overview.stdout.contains("pacenote \(command)"), overview.stdout)
        }
    }

    func testUnknownCommandsAndOptionsAreUsageErrors() throws {
        let unknown = try run(["frobnicate"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown command frobnicate"), unknown.stderr)
        let badOption = try run(["import-parse", "--no-such-option"])
        XCTAssertEqual(badOption.status, 2)
        XCTAssertTrue(badOption.stderr.contains("unknown option --no-such-option"), badOption.stderr)
    }
}
