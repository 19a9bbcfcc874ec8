import Foundation
import TestSupport
import XCTest

/// The data directory is 0700 and the files holding emails and hashes 0600: the database, its
/// WAL and shared-memory files, and the output of `pacenote backup`; looser modes found on an
/// existing data directory are tightened at start, and the command says so.
///
/// Every test here is about SQLite's files, so each returns at once on the PostgreSQL pass
/// (`TestDatabase`), where the database is the cluster's and already ran on the SQLite pass.
final class FileModeTests: CommandTestCase {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try XCTUnwrap(attributes[.posixPermissions] as? Int, "no mode for \(path)") & 0o777
    }

    private func octal(_ mode: Int) -> String { String(mode, radix: 8) }

    private func assertMode(_ path: String, _ expected: Int, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let actual = try mode(path)
            XCTAssertEqual(actual, expected, "\(context): \(path) is \(octal(actual)), expected \(octal(expected))", file: file, line: line)
        } catch {
            XCTFail("\(context): \(error)", file: file, line: line)
        }
    }

    func testServeKeepsTheDataDirectoryAndDatabaseFilesPrivate() throws {
        guard TestDatabase.isSQLite else { throw XCTSkip("SQLite's files (see the type's comment); it ran on the SQLite pass") }
        // The harness made the data directory with the usual 0755 before serve started.
        try server.start()
        let client = HTTPClient(port: server.port)
        defer { client.close() }
        _ = try client.signup()
        let directory = server.dataDir.path
        assertMode(directory, 0o700, "the data directory")
        for name in ["pacenote.sqlite", "pacenote.sqlite-wal", "pacenote.sqlite-shm", "cursor.key"] {
            let path = (directory as NSString).appendingPathComponent(name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(name) exists while serving")
            assertMode(path, 0o600, name)
        }

        let backup = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-backup-\(UUID().uuidString.prefix(8)).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: backup) }
        let run = server.runCLI(["backup", backup])
        XCTAssertEqual(run.status, 0, "pacenote backup: \(run)")
        assertMode(backup, 0o600, "the backup holds the same emails and hashes")
    }

    func testLooserModesOnAnExistingDataDirectoryAreTightenedAndLogged() throws {
        guard TestDatabase.isSQLite else { throw XCTSkip("SQLite's files (see the type's comment); it ran on the SQLite pass") }
        XCTAssertEqual(server.runCLI(["migrate"]).status, 0)
        let directory = server.dataDir.path
        let database = (directory as NSString).appendingPathComponent("pacenote.sqlite")
        XCTAssertEqual(chmod(directory, 0o755), 0)
        XCTAssertEqual(chmod(database, 0o644), 0)

        let run = server.runCLI(["migrate"])
        XCTAssertEqual(run.status, 0, "migrate: \(run)")
        assertMode(directory, 0o700, "the data directory after a restart")
        assertMode(database, 0o600, "the database after a restart")
        XCTAssertTrue(run.stderr.contains("permissions tightened") && run.stderr.contains("pacenote.sqlite"),
                      "the command logs what it tightened: \(run.stderr)")

        let again = server.runCLI(["migrate"])
        XCTAssertFalse(again.stderr.contains("permissions tightened"), "nothing to tighten the second time: \(again.stderr)")
    }

    func testANewDataDirectoryIsCreatedPrivate() throws {
        guard TestDatabase.isSQLite else { throw XCTSkip("SQLite's files (see the type's comment); it ran on the SQLite pass") }
        let directory = server.dataDir.appendingPathComponent("nested/data").path
        let run = TestServer.run(binary: server.binary, arguments: ["migrate", "--data-dir", directory], timeout: 60)
        XCTAssertEqual(run.status, 0, "migrate: \(run)")
        assertMode(directory, 0o700, "a data directory migrate created")
        assertMode((directory as NSString).appendingPathComponent("pacenote.sqlite"), 0o600, "a database migrate created")
    }
}
