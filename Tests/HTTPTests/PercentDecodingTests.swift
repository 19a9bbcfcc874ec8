import XCTest
@testable import HTTP

final class PercentDecodingTests: XCTestCase {
    func testDecodesEscapesIntoUTF8() {
        XCTAssertEqual(PercentDecoding.decode("/v1/users/%41lice"), "/v1/users/Alice")
        XCTAssertEqual(PercentDecoding.decode("Mont%C3%A9e"), "Montée")
        XCTAssertEqual(PercentDecoding.decode("plain"), "plain")
        XCTAssertEqual(PercentDecoding.decode("100%25"), "100%")
    }

    func testRefusesWhatWouldCorruptThePath() {
        XCTAssertNil(PercentDecoding.decode("/v1/users/%00"), "a NUL would cut a C string short")
        XCTAssertNil(PercentDecoding.decode("%zz"))
        XCTAssertNil(PercentDecoding.decode("%4"))
        XCTAssertNil(PercentDecoding.decode("%C3"), "half a UTF-8 sequence")
        XCTAssertNil(PercentDecoding.decode("%FF%FE"))
    }
}
