import XCTest
@testable import HTTP

final class EntityTagTests: XCTestCase {
    /// The specification's vectors (xxhsum -H64), so our tags are XXH64 and not a look-alike.
    func testXXH64MatchesTheReferenceVectors() {
        XCTAssertEqual(XXH64.hash([]), 0xEF46_DB37_51D8_E999)
        XCTAssertEqual(XXH64.hash(Array("abc".utf8)), 0x44BC_2CF5_AD77_0999)
    }

    /// Every length path (the 32-byte stripes, 8-, 4- and 1-byte tails) changes with any byte.
    func testEveryByteOfEveryLengthChangesTheHash() {
        for length in 1...100 {
            let body = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let original = XXH64.hash(body)
            for index in [0, length / 2, length - 1] {
                var changed = body
                changed[index] ^= 1
                XCTAssertNotEqual(XXH64.hash(changed), original, "length \(length), byte \(index)")
            }
        }
    }

    func testStrongTagIsQuotedHex() {
        let tag = EntityTag.strong(of: Array("{}".utf8))
        XCTAssertEqual(tag.count, 18)
        XCTAssertTrue(tag.hasPrefix("\"") && tag.hasSuffix("\""))
        XCTAssertEqual(tag, EntityTag.strong(of: Array("{}".utf8)))
        XCTAssertNotEqual(tag, EntityTag.strong(of: Array("[]".utf8)))
    }

    func testIfNoneMatchComparesWeaklyAndReadsLists() {
        let tag = "\"abc\""
        XCTAssertTrue(EntityTag.noneMatch(["\"abc\""], tag))
        XCTAssertTrue(EntityTag.noneMatch(["W/\"abc\""], tag), "weak comparison for If-None-Match")
        XCTAssertTrue(EntityTag.noneMatch(["*"], tag))
        XCTAssertTrue(EntityTag.noneMatch(["\"x\", W/\"y\",\"abc\""], tag))
        XCTAssertTrue(EntityTag.noneMatch(["\"x\"", "\"abc\""], tag), "every field of the name counts")
        XCTAssertTrue(EntityTag.noneMatch(["\"a,b\", \"abc\""], tag), "a comma inside a tag is part of it")
        XCTAssertFalse(EntityTag.noneMatch(["\"a,b\""], "\"a\""))
        XCTAssertFalse(EntityTag.noneMatch(["\"abcd\"", "\"ab\""], tag))
        XCTAssertFalse(EntityTag.noneMatch(["abc"], tag), "unquoted is malformed")
        XCTAssertFalse(EntityTag.noneMatch(["\"abc"], tag), "unterminated is malformed")
        XCTAssertFalse(EntityTag.noneMatch([""], tag))
        XCTAssertFalse(EntityTag.noneMatch(["w/\"abc\""], tag), "W/ is case-sensitive")
    }
}
