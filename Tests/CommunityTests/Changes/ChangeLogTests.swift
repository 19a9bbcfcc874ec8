import Dispatch
import Storage
import TestSupport
import XCTest
@testable import Community

/// The change log's SQL on the dialect `TestDatabase` chooses: positions, the purge and its
/// horizon, and on PostgreSQL the reader's rule that a row is handed out only once no
/// transaction that could still commit behind it is open.
final class ChangeLogTests: XCTestCase {
    private let log = ChangeLog()

    func testTheHorizonExpiresOnlyReadersBehindItWhoseCopyIsOlderThanThePurge() {
        let horizon = ChangeHorizon(purged: ChangePosition(txid: 0, seq: 10), purgedBefore: 5_000)
        XCTAssertTrue(horizon.expired(position: ChangePosition(txid: 0, seq: 9), origin: 4_999), "behind, started before the purged tombstone")
        XCTAssertFalse(horizon.expired(position: ChangePosition(txid: 0, seq: 10), origin: 0), "at the horizon: every purged row was read")
        XCTAssertFalse(horizon.expired(position: ChangePosition(txid: 0, seq: 3), origin: 5_000),
                       "a snapshot started after the purged deletions never held those objects")
        XCTAssertTrue(ChangePosition(txid: 1, seq: 1) > ChangePosition(txid: 0, seq: 99), "the transaction id orders first")
    }

    func testEveryChangeMovesTheObjectsOneRowToTheEnd() throws {
        let temp = try TemporaryDatabase(migrated: true)
        try temp.database.write { c in
            try log.record(.video, id: "v1", deleted: false, now: 1, on: c)
            try log.record(.rally, id: "r1", deleted: false, now: 1, on: c)
        }
        try temp.database.write { c in try log.record(.video, id: "v1", deleted: true, now: 2, on: c) }
        let rows = try temp.database.read { c in try log.rows(after: .start, limit: 10, on: c) }
        XCTAssertEqual(rows.map { "\($0.kind)/\($0.objectID)/\($0.deleted)" }, ["rally/r1/false", "video/v1/true"])
        XCTAssertLessThan(rows[0].position, rows[1].position)
        let after = try temp.database.read { c in try log.rows(after: rows[0].position, limit: 10, on: c) }
        XCTAssertEqual(after.map(\.objectID), ["v1"])
    }

    func testThePurgeTakesOldTombstonesInBatchesAndMovesTheHorizon() throws {
        let temp = try TemporaryDatabase(migrated: true)
        try temp.database.write { c in
            for index in 0..<5 { try log.record(.video, id: "old\(index)", deleted: true, now: 100 + Int64(index), on: c) }
            try log.record(.video, id: "live", deleted: false, now: 50, on: c)
            try log.record(.video, id: "recent", deleted: true, now: 10_000, on: c)
        }
        let first = try temp.database.write { c in try log.purgeTombstones(before: 1_000, batch: 3, on: c) }
        let second = try temp.database.write { c in try log.purgeTombstones(before: 1_000, batch: 3, on: c) }
        XCTAssertEqual([first, second], [3, 2])
        let rows = try temp.database.read { c in try log.rows(after: .start, limit: 10, on: c) }
        XCTAssertEqual(rows.map(\.objectID), ["live", "recent"], "live rows and recent tombstones stay")
        let horizon = try temp.database.read { c in try log.horizon(on: c) }
        XCTAssertEqual(horizon.purgedBefore, 105)
        XCTAssertLessThan(horizon.purged, rows[0].position)
        // A new change lands past everything purged, even once the newest rows are gone.
        try temp.database.write { c in _ = try log.purgeTombstones(before: 20_000, batch: 10, on: c) }
        try temp.database.write { c in try log.record(.rally, id: "new", deleted: false, now: 20_001, on: c) }
        let purged = try temp.database.read { c in try log.horizon(on: c) }.purged
        let new = try XCTUnwrap(try temp.database.read { c in try log.rows(after: .start, limit: 10, on: c) }.last)
        XCTAssertEqual(new.objectID, "new")
        XCTAssertGreaterThan(new.position, purged)
    }

    /// A transaction that took its position first and commits last: a reader must hand out
    /// neither it nor the later one that committed before it, until it has ended; then both,
    /// in transaction order. (Handing out the later one first is how a seq-ordered log skips.)
    func testOnPostgresNothingIsHandedOutBehindATransactionStillOpen() throws {
        guard TestDatabase.dialect == .postgres else { throw XCTSkip("SQLite's one writer commits in position order") }
        let temp = try TemporaryDatabase(migrated: true)
        let database = temp.database
        let recorded = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let log = self.log
        DispatchQueue.global().async {
            // READ COMMITTED: the point is the order of commits, not a serialization failure's rerun.
            try? database.write(isolation: .readCommitted) { c in
                try log.record(.video, id: "first", deleted: false, now: 1, on: c)
                recorded.signal()
                release.wait()
            }
            done.signal()
        }
        recorded.wait()
        try database.write(isolation: .readCommitted) { c in try log.record(.video, id: "second", deleted: false, now: 2, on: c) }
        XCTAssertEqual(try database.read { c in try log.rows(after: .start, limit: 10, on: c) }.map(\.objectID), [],
                       "second committed, but first, older, is still open")
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try database.read { c in try log.rows(after: .start, limit: 10, on: c) }.map(\.objectID), ["first", "second"])
    }
}
