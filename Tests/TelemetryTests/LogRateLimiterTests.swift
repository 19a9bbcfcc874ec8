import XCTest
@testable import Telemetry

final class LogRateLimiterTests: XCTestCase {
    func testAFloodWritesOneLinePerIntervalAndCountsTheRest() {
        var limiter = LogRateLimiter(intervalMillis: 1_000)
        var written: [LogRateLimiter.Decision] = []
        // 1,000 events over 2.5 s, one every 2.5 ms.
        for i in 0..<1_000 {
            let decision = limiter.admit("refused", nowMillis: 10_000 + Int64(i) * 5 / 2)
            if decision != .suppress { written.append(decision) }
        }
        // Written at 10.0 s, 11.0 s and 12.0 s; everything in between is counted.
        XCTAssertEqual(written, [.log(suppressed: 0), .log(suppressed: 399), .log(suppressed: 399)])
    }

    func testTheDroppedCountIsReportedByTheNextLineEvenMuchLater() {
        var limiter = LogRateLimiter(intervalMillis: 1_000)
        XCTAssertEqual(limiter.admit("k", nowMillis: 0), .log(suppressed: 0))
        XCTAssertEqual(limiter.admit("k", nowMillis: 1), .suppress)
        XCTAssertEqual(limiter.admit("k", nowMillis: 999), .suppress)
        XCTAssertEqual(limiter.admit("k", nowMillis: 60_000), .log(suppressed: 2))
        XCTAssertEqual(limiter.admit("k", nowMillis: 61_000), .log(suppressed: 0))
    }

    func testKeysAreLimitedApart() {
        var limiter = LogRateLimiter(intervalMillis: 1_000)
        XCTAssertEqual(limiter.admit("refused", nowMillis: 0), .log(suppressed: 0))
        XCTAssertEqual(limiter.admit("timed out", nowMillis: 1), .log(suppressed: 0), "another key has its own budget")
        XCTAssertEqual(limiter.admit("refused", nowMillis: 2), .suppress)
    }

    func testAClockGoingBackwardsDoesNotSilenceAKey() {
        var limiter = LogRateLimiter(intervalMillis: 1_000)
        XCTAssertEqual(limiter.admit("k", nowMillis: 50_000), .log(suppressed: 0))
        XCTAssertEqual(limiter.admit("k", nowMillis: 50_001), .suppress)
        XCTAssertEqual(limiter.admit("k", nowMillis: 10), .log(suppressed: 1))
    }
}
