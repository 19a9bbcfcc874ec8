import Storage
import TestSupport
import XCTest
@testable import SocialAPI

/// Where a refresh starts and how it moves (`RefreshPosition`): rows are `(time, id)`, settled
/// at or below time 100 (the horizon is `(101, "")`).
final class RefreshPositionTests: XCTestCase {
    private typealias Row = (time: Int64, id: String)
    private let horizon = RefreshHorizon<Row>.byTime(now: 100 + RefreshHorizon<Row>.settleMillis, createdAt: { $0.time }, tiebreak: .string(""))
    private func position(_ row: Row) -> [CursorValue] { [.int(row.time), .string(row.id)] }

    /// The horizon of a time list reads no row; the seam still asks for a connection.
    private func withConnection<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        let temporary = try TemporaryDatabase()
        return try temporary.database.read(body)
    }

    func testCursorValuesRoundTripAndForeignShapesAreRefused() {
        let start = RefreshPosition(mark: [.int(5), .string("a")], shown: [[.int(6), .string("b")], [.int(7), .string("c")]])
        XCTAssertEqual(RefreshPosition(values: start.values), start)
        XCTAssertNil(RefreshPosition(values: [.int(2), .int(5)]), "a mark shorter than its arity")
        XCTAssertNil(RefreshPosition(values: [.int(2), .int(5), .string("a"), .int(6)]), "a shown position cut short")
        XCTAssertNil(RefreshPosition(values: [.string("x")]), "no arity")
        XCTAssertNil(RefreshPosition(values: [.int(0)]), "arity 0")
    }

    func testAPageMarksItsNewestSettledRowAndCarriesTheNewerOnes() throws {
        let page: [Row] = [(104, "d"), (102, "c"), (99, "b"), (98, "a")]
        let mark = try withConnection { try RefreshPosition.after(olderPage: page, fromHead: true, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(mark, RefreshPosition(mark: [.int(99), .string("b")], shown: [[.int(104), .string("d")], [.int(102), .string("c")]]))
    }

    func testAPageOfUnsettledRowsMarksItsOldestAndAnEmptyPageTheHorizon() throws {
        let page: [Row] = [(104, "d"), (102, "c")]
        let mark = try withConnection { try RefreshPosition.after(olderPage: page, fromHead: true, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(mark, RefreshPosition(mark: [.int(102), .string("c")], shown: [[.int(104), .string("d")]]))
        let empty = try withConnection { try RefreshPosition.after(olderPage: [Row](), fromHead: true, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(empty, RefreshPosition(mark: [.int(.min), .string("")], shown: []), "an empty list: its start, whatever the time")
        let pastTheEnd = try withConnection { try RefreshPosition.after(olderPage: [Row](), fromHead: false, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(pastTheEnd, RefreshPosition(mark: [.int(101), .string("")], shown: []))
    }

    func testARefreshToTheHeadMovesTheMarkToTheHorizonKeepingOnlyUnsettledRows() throws {
        let start = RefreshPosition(mark: [.int(90), .string("a")], shown: [[.int(103), .string("x")]])
        let answered: [Row] = [(95, "b"), (100, "c"), (102, "d")]
        let next = try withConnection { try start.advanced(by: answered, more: false, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(next, RefreshPosition(mark: [.int(101), .string("")], shown: [[.int(103), .string("x")], [.int(102), .string("d")]]))
    }

    func testARefreshWithMoreMovesTheMarkToItsLastSettledRowOnly() throws {
        let start = RefreshPosition(mark: [.int(90), .string("a")], shown: [])
        let settled = try withConnection { try start.advanced(by: [(95, "b"), (97, "c")], more: true, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(settled, RefreshPosition(mark: [.int(97), .string("c")], shown: []))
        let unsettled = try withConnection { try start.advanced(by: [(99, "b"), (102, "c")], more: true, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(unsettled, RefreshPosition(mark: [.int(101), .string("")], shown: [[.int(102), .string("c")]]))
    }

    func testARefreshThatBroughtNothingAnswersTheSamePosition() throws {
        let start = RefreshPosition(mark: [.int(90), .string("a")], shown: [[.int(103), .string("x")]])
        XCTAssertEqual(try withConnection { try start.advanced(by: [Row](), more: false, position: position, horizon: horizon, on: $0) }, start)
    }

    func testTheMarkNeverMovesDown() throws {
        // A clock that stepped back: the horizon is below the mark, which stays.
        let start = RefreshPosition(mark: [.int(150), .string("z")], shown: [])
        let next = try withConnection { try start.advanced(by: [(160, "y")], more: false, position: position, horizon: horizon, on: $0) }
        XCTAssertEqual(next.mark, [.int(150), .string("z")])
        XCTAssertEqual(next.shown, [[.int(160), .string("y")]])
    }
}
