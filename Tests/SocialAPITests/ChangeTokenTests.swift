import Crypto
import XCTest
@testable import Community
@testable import SocialAPI

/// `GET /v1/changes` tokens: opaque like cursors, bound to the endpoint and the caller.
final class ChangeTokenTests: XCTestCase {
    private let codec = CursorCodec(key: HMACKey(bytes: Array(repeating: 7, count: 32)))

    func testATokenComesBackForItsCallerOnly() throws {
        let token = ChangeToken(position: ChangePosition(txid: 1 << 40, seq: 12), origin: 1_765_000_000_000)
        let text = token.encode(codec: codec, callerID: "alice")
        XCTAssertEqual(try ChangeToken.decode(text, codec: codec, callerID: "alice"), token)
        XCTAssertThrowsError(try ChangeToken.decode(text, codec: codec, callerID: "bob")) { XCTAssertEqual($0 as? CursorError, .unreadable) }
        XCTAssertThrowsError(try ChangeToken.decode(text, codec: codec, callerID: nil), "an anonymous reader's scope is another")
    }

    func testAListCursorIsNoToken() {
        let cursor = codec.encode([.int(1), .int(2), .int(3)], scope: "rally-day-videos|r|1|recent")
        XCTAssertThrowsError(try ChangeToken.decode(cursor, codec: codec, callerID: "alice"))
        let shaped = codec.encode([.int(1), .string("x")], scope: ChangeToken.scope(callerID: "alice"))
        XCTAssertThrowsError(try ChangeToken.decode(shaped, codec: codec, callerID: "alice")) { XCTAssertEqual($0 as? CursorError, .foreignShape) }
    }

    func testExpiredIsGone410() {
        let answer = APIErrors.map(SyncError.expired)
        XCTAssertEqual(answer.status, 410)
        XCTAssertEqual(answer.code, "sync_expired")
    }
}
