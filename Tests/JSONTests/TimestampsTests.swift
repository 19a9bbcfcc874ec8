import XCTest
@testable import JSON

final class TimestampsTests: XCTestCase {
    func testFormatKnownInstants() {
        XCTAssertEqual(ISO8601Millis.format(millisecondsSince1970: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ISO8601Millis.format(millisecondsSince1970: 1_396_692_930_123), "2014-04-05T10:15:30.123Z")
        XCTAssertEqual(ISO8601Millis.format(millisecondsSince1970: -1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(ISO8601Millis.format(millisecondsSince1970: 951_782_400_000), "2000-02-29T00:00:00.000Z")
    }

    func testParse() {
        XCTAssertEqual(ISO8601Millis.parse("2014-04-05T10:15:30.123Z"), 1_396_692_930_123)
        XCTAssertEqual(ISO8601Millis.parse("2014-04-05T10:15:30Z"), 1_396_692_930_000)
        XCTAssertEqual(ISO8601Millis.parse("2014-04-05T10:15:30.1Z"), 1_396_692_930_100)
        for bad in ["", "2014-04-05", "2014-04-05T10:15:30", "2014-04-05T24:00:00Z", "2014-02-30T00:00:00Z",
                    "2014-04-05T10:15:30.1234Z", "2014-04-05T10:15:30.Z", "2014-04-05 10:15:30Z", "２014-04-05T10:15:30Z",
                    "2014-04-05T10:60:00Z", "2014-04-05T10:15:30+01:00"] {
            XCTAssertNil(ISO8601Millis.parse(bad), bad)
        }
    }

    func testRoundTripAcrossCenturies() {
        var ms: Int64 = -2_208_988_800_000  // 1900-01-01
        while ms < 7_258_118_400_000 {  // 2200-01-01
            let s = ISO8601Millis.format(millisecondsSince1970: ms)
            XCTAssertEqual(ISO8601Millis.parse(s), ms, s)
            ms += 86_400_000 * 37 + 3_600_000 * 5 + 61_001
        }
    }

    func testCalendarDates() {
        XCTAssertEqual(CalendarDate.format(daysSince1970: 0), "1970-01-01")
        XCTAssertEqual(CalendarDate.parse("2024-02-29"), 19_782)
        XCTAssertEqual(CalendarDate.format(daysSince1970: 19_782), "2024-02-29")
        for bad in ["2023-02-29", "1900-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "2024-4-1", "2024-04-01x", ""] {
            XCTAssertNil(CalendarDate.parse(bad), bad)
        }
        XCTAssertNotNil(CalendarDate.parse("2000-02-29"))
        // Years 0000...9999.
        for day in stride(from: -719_528, through: 2_932_896, by: 997) {
            XCTAssertEqual(CalendarDate.parse(CalendarDate.format(daysSince1970: day)), day)
        }
    }
}
