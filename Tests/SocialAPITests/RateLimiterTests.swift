import HTTP
import XCTest
@testable import Community
@testable import SocialAPI

final class RateLimiterTests: XCTestCase {
    func testParsesTheFlagSyntax() throws {
        XCTAssertEqual(try RateLimit.parse("50/h"), RateLimit(count: 50, periodMillis: 3_600_000))
        XCTAssertEqual(try RateLimit.parse("600/m"), RateLimit(count: 600, periodMillis: 60_000))
        XCTAssertEqual(try RateLimit.parse("3/s"), RateLimit(count: 3, periodMillis: 1_000))
        XCTAssertNil(try RateLimit.parse("off"))
        for bad in ["", "50", "0/s", "-1/s", "5/d", "x/m", "5/", "/m", "5/s/s"] {
            XCTAssertThrowsError(try RateLimit.parse(bad), bad)
        }
    }

    /// `count` at once, then one per period/count, and Retry-After says when.
    func testBurstThenSteadyRate() {
        let limiter = RateLimiter(limit: RateLimit(count: 3, periodMillis: 3_000), tableSize: 16)
        for _ in 0..<3 { XCTAssertEqual(limiter.check("a", now: 10_000), .allowed) }
        XCTAssertEqual(limiter.check("a", now: 10_000), .refused(retryAfterMillis: 1_000))
        XCTAssertEqual(limiter.check("b", now: 10_000), .allowed, "another key has its own budget")
        XCTAssertEqual(limiter.check("a", now: 10_999), .refused(retryAfterMillis: 1))
        XCTAssertEqual(limiter.check("a", now: 11_000), .allowed, "one more each second")
        XCTAssertEqual(limiter.check("a", now: 11_000), .refused(retryAfterMillis: 1_000))
        for _ in 0..<3 { XCTAssertEqual(limiter.check("a", now: 20_000), .allowed, "a whole period later, the full burst again") }
    }

    /// However many keys come, the table keeps its size, and a key being limited is not the one
    /// forgotten when recharged ones can go instead.
    func testMemoryIsBoundedAndLimitedKeysSurviveAFloodOfNewOnes() {
        let limiter = RateLimiter(limit: RateLimit(count: 2, periodMillis: 60_000), tableSize: 64)
        XCTAssertEqual(limiter.check("attacker", now: 0), .allowed)
        XCTAssertEqual(limiter.check("attacker", now: 0), .allowed)
        XCTAssertNotEqual(limiter.check("attacker", now: 0), .allowed)
        // 10,000 one-off keys in a 64-slot table: each is less limited than the attacker (one
        // request spent of two), so each takes the slot of another one-off key, never the attacker's.
        for index in 0..<10_000 { _ = limiter.check("key-\(index)", now: 1) }
        XCTAssertEqual(limiter.check("attacker", now: 2), .refused(retryAfterMillis: 29_998), "still limited, with its own count")
    }

    func testClientAddressTrustsOnlyListedProxiesAndTheLastHop() {
        var request = Request(method: "GET", path: "/", headers: HTTPHeaders([("X-Forwarded-For", "1.1.1.1, 2.2.2.2 ")]), remoteAddress: "10.0.0.1")
        XCTAssertEqual(ClientAddress.resolve(request, trustedProxies: ["10.0.0.1"]), "2.2.2.2")
        XCTAssertEqual(ClientAddress.resolve(request, trustedProxies: []), "10.0.0.1")
        request.headers = HTTPHeaders([("X-Forwarded-For", " ")])
        XCTAssertEqual(ClientAddress.resolve(request, trustedProxies: ["10.0.0.1"]), "10.0.0.1", "an empty hop is no client")
        XCTAssertEqual(ClientAddress.limitKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64", "IPv6 counts by its /64")
        XCTAssertEqual(ClientAddress.limitKey("2001:db8::1"), "2001:db8:0:0::/64")
        XCTAssertEqual(ClientAddress.limitKey("::ffff:192.0.2.1"), "192.0.2.1")
        XCTAssertEqual(ClientAddress.limitKey("192.0.2.1"), "192.0.2.1")
    }
}
