import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import SQLiteStorage
@testable import Storage

/// Several openers of one new file at once (two servers on a fresh data directory, `serve`
/// beside `migrate`) race to switch it to WAL mode; SQLite answers the losers SQLITE_BUSY at
/// once, without its busy handler, and each must wait and ask again (`SQLiteDatabase.enterWAL`).
final class WALSwitchRaceTests: XCTestCase {
    func testDatabasesOpeningOneNewFileTogetherAllOpen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-wal-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let openers = 8
        for round in 0..<40 {
            let path = directory.appendingPathComponent("race-\(round).sqlite").path
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            let failures = Mutex<[String]>([])
            for _ in 0..<openers {
                done.enter()
                Thread.detachNewThread {
                    defer { done.leave() }
                    start.wait()
                    do {
                        try SQLiteDatabase(configuration: .init(path: path)).close()
                    } catch {
                        failures.withLock { $0.append(String(describing: error)) }
                    }
                }
            }
            for _ in 0..<openers { start.signal() }
            done.wait()
            XCTAssertEqual(failures.withLock { $0 }, [], "round \(round)")
        }
    }
}
