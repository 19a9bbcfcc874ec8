import XCTest
@testable import HTTP

final class LargeBodySlotsTests: XCTestCase {
    func testAHolderHasAtMostItsShareAndTheServerAtMostItsSlots() throws {
        let slots = LargeBodySlots(capacity: 3, maxPerHolder: 2)
        let alice = BodyHolder("alice"), bob = BodyHolder("bob")
        let first = try slots.take(for: alice)
        _ = try slots.take(for: alice)
        XCTAssertThrowsError(try slots.take(for: alice)) { XCTAssertEqual($0 as? LargeBodySlots.Refusal, .holderAtLimit) }
        _ = try slots.take(for: bob)
        XCTAssertThrowsError(try slots.take(for: nil)) { XCTAssertEqual($0 as? LargeBodySlots.Refusal, .full, "three slots in all") }
        XCTAssertThrowsError(try slots.take(for: alice)) {
            XCTAssertEqual($0 as? LargeBodySlots.Refusal, .holderAtLimit, "an account over its own share is told so, full or not")
        }
        XCTAssertEqual(slots.inUse, 3)

        slots.release(first)
        XCTAssertEqual(slots.held(by: alice), 1)
        _ = try slots.take(for: alice)
        XCTAssertEqual(slots.inUse, 3)
    }

    func testAnonymousBodiesCountOnlyAgainstTheServer() throws {
        let slots = LargeBodySlots(capacity: 2, maxPerHolder: 1)
        let leases = try (0..<2).map { _ in try slots.take(for: nil) }
        XCTAssertThrowsError(try slots.take(for: nil))
        leases.forEach(slots.release)
        XCTAssertEqual(slots.inUse, 0)
    }
}

final class EarlyRefusalTests: XCTestCase {
    /// The status of a head libmicrohttpd refuses while parsing its fields, answered by us once.
    func testTheStatusFollowsWhatMHDRefused() {
        for value in ["abc", "-1", "4, 4", "0x4", "", "+4"] {
            XCTAssertEqual(ServerCore.earlyRefusal(contentLength: value, chunked: false).status, 400, value)
        }
        XCTAssertEqual(ServerCore.earlyRefusal(contentLength: "99999999999999999999999", chunked: false).status, 413, "past 64 bits")
        XCTAssertEqual(ServerCore.earlyRefusal(contentLength: "abc", chunked: true).status, 431, "with Transfer-Encoding MHD reads no length: the Cookie")
        XCTAssertEqual(ServerCore.earlyRefusal(contentLength: nil, chunked: false).status, 431)
    }
}
