import Community
import Imaging
import Telemetry
import XCTest
@testable import SocialAPI

/// The in-memory cache of served renditions: bounded by bytes (least recently used out first),
/// entries checked again after `revalidateMillis`, an owner's entries evicted at once.
final class PictureCacheTests: XCTestCase {
    private func cache(budget: Int) -> PictureCache {
        PictureCache(budgetBytes: budget, revalidateMillis: 1_000, metrics: MetricsRegistry())
    }

    func testFreshThenStaleThenConfirmed() {
        let cache = cache(budget: 1_000)
        XCTAssertEqual(cache.state("a", now: 0), "miss")
        cache.insert("a", bytes: [1, 2, 3], userID: "u", now: 0)
        XCTAssertEqual(cache.state("a", now: 999), "fresh 3")
        XCTAssertEqual(cache.state("a", now: 1_000), "stale 3", "checked again once revalidateMillis passed")
        cache.confirm("a", now: 1_000)
        XCTAssertEqual(cache.state("a", now: 1_500), "fresh 3")
        cache.remove("a")
        XCTAssertEqual(cache.state("a", now: 1_500), "miss")
    }

    func testTheBudgetHoldsAndTheLeastRecentlyUsedGoFirst() {
        let cache = cache(budget: 1_000)
        for index in 0..<4 { cache.insert("p\(index)", bytes: Array(repeating: 0, count: 200), userID: "u\(index)", now: 0) }
        _ = cache.lookup("p0", now: 0)  // p0 used again: p1 is now the oldest
        cache.insert("p4", bytes: Array(repeating: 0, count: 200), userID: "u4", now: 0)
        cache.insert("p5", bytes: Array(repeating: 0, count: 200), userID: "u5", now: 0)
        XCTAssertLessThanOrEqual(cache.heldBytes, 1_000)
        XCTAssertEqual(cache.state("p1", now: 0), "miss", "the least recently used went")
        XCTAssertEqual(cache.state("p0", now: 0), "fresh 200", "the one used again stayed")
        XCTAssertEqual(cache.state("p5", now: 0), "fresh 200")
        // One rendition larger than a quarter of the budget is served but not kept.
        cache.insert("huge", bytes: Array(repeating: 0, count: 300), userID: "u", now: 0)
        XCTAssertEqual(cache.state("huge", now: 0), "miss")
    }

    func testEvictingAUserForgetsEachOfTheirRenditions() {
        let cache = cache(budget: 10_000)
        cache.insert("a-400", bytes: [1], userID: "ana", now: 0)
        cache.insert("a-100", bytes: [1], userID: "ana", now: 0)
        cache.insert("b-400", bytes: [1], userID: "ben", now: 0)
        cache.evict(userID: "ana")
        XCTAssertEqual(cache.state("a-400", now: 0), "miss")
        XCTAssertEqual(cache.state("a-100", now: 0), "miss")
        XCTAssertEqual(cache.state("b-400", now: 0), "fresh 1")
        XCTAssertEqual(cache.heldBytes, 1)
    }

    func testNamesThatCannotBeAPicturesAreNotLookedUp() {
        let key = "Ab3dEfGh1jKlMn0pQrStUv"
        XCTAssertTrue(PictureName.isWellFormed(PictureName.large(key)))
        XCTAssertTrue(PictureName.isWellFormed(PictureName.small(key)))
        for name in ["\(key)-200.jpg", "\(key)-400.png", "\(key)x-400.jpg", "Ab3dEfGh1jKlMn0pQrStU_-400.jpg", "../../etc/passwd",
                     "", "\(key.dropLast())é-400.jpg"] {
            XCTAssertFalse(PictureName.isWellFormed(name), name)
        }
    }

    func testIfNoneMatchListsAndStars() {
        XCTAssertTrue(PictureRoutes.matches("\"k-400\"", "\"k-400\""))
        XCTAssertTrue(PictureRoutes.matches("\"x\", \"k-400\"", "\"k-400\""))
        XCTAssertTrue(PictureRoutes.matches("W/\"k-400\"", "\"k-400\""))
        XCTAssertTrue(PictureRoutes.matches("*", "\"k-400\""))
        XCTAssertFalse(PictureRoutes.matches("\"k-100\"", "\"k-400\""))
        XCTAssertEqual(ImageFormat(mediaType: "Image/JPEG; charset=binary"), .jpeg)
        XCTAssertEqual(ImageFormat(mediaType: " image/jpg "), .jpeg)
        XCTAssertEqual(ImageFormat(mediaType: "image/HEIF"), .heif)
        XCTAssertNil(ImageFormat(mediaType: "image/avif"))
        XCTAssertNil(ImageFormat(mediaType: "image/jpeg2"))
    }
}

private extension PictureCache {
    func state(_ name: String, now: Int64) -> String {
        switch lookup(name, now: now) {
        case .fresh(let bytes): "fresh \(bytes.count)"
        case .stale(let bytes): "stale \(bytes.count)"
        case .miss: "miss"
        }
    }
}
