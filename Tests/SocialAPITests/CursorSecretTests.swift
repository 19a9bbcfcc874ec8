import Crypto
import Foundation
import XCTest
@testable import Community
@testable import SocialAPI

final class CursorSecretTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-cursor-\(UUID().uuidString)").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Two keys are the same when a cursor made by one verifies under the other.
    private func sameKey(_ a: HMACKey, _ b: HMACKey) -> Bool {
        let cursor = CursorCodec(key: a).encode([.int(1)], scope: "s")
        return (try? CursorCodec(key: b).decode(cursor, scope: "s")) != nil
    }

    func testTheKeyFileIsCreatedOncePrivatelyAndReadBack() throws {
        let first = try CursorSecret.load(dataDirectory: directory, configured: nil)
        let path = (directory as NSString).appendingPathComponent("cursor.key")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let contents = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(contents.count, 65)
        XCTAssertEqual(CursorSecret.parse(contents)?.count, 32)
        // No temporary file is left beside it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["cursor.key"])

        let second = try CursorSecret.load(dataDirectory: directory, configured: nil)
        XCTAssertTrue(sameKey(first, second))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), contents, "the key file was rewritten")

        // Another data directory gets another key.
        let otherDirectory = directory + "-other"
        defer { try? FileManager.default.removeItem(atPath: otherDirectory) }
        XCTAssertFalse(sameKey(first, try CursorSecret.load(dataDirectory: otherDirectory, configured: nil)))
    }

    func testAConfiguredSecretWins() throws {
        let hex = String(repeating: "ab", count: 32)
        let fromFlag = try CursorSecret.load(dataDirectory: directory, configured: hex)
        XCTAssertTrue(sameKey(fromFlag, HMACKey(bytes: Array(repeating: 0xAB, count: 32))))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory), "a configured secret needs no key file")

        // Even over an existing key file, and in upper case.
        let fromFile = try CursorSecret.load(dataDirectory: directory, configured: nil)
        XCTAssertFalse(sameKey(fromFile, fromFlag))
        XCTAssertTrue(sameKey(try CursorSecret.load(dataDirectory: directory, configured: hex.uppercased()), fromFlag))
    }

    func testABadConfiguredSecretIsAnError() {
        for bad in ["", "abc", String(repeating: "ab", count: 31), String(repeating: "ab", count: 33),
                    String(repeating: "zz", count: 32), "0x" + String(repeating: "ab", count: 31)] {
            XCTAssertThrowsError(try CursorSecret.load(dataDirectory: directory, configured: bad), bad) { error in
                XCTAssertEqual(error as? CursorSecretError, .invalidConfiguredSecret)
                XCTAssertFalse("\(error)".contains(bad) && !bad.isEmpty, "the description echoes the secret")
            }
        }
    }

    func testACorruptKeyFileIsAnErrorNotSilentlyReplaced() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent("cursor.key")
        try "abcd\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try CursorSecret.load(dataDirectory: directory, configured: nil)) { error in
            XCTAssertEqual(error as? CursorSecretError, .invalidKeyFile(path: path))
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "abcd\n")
    }
}
