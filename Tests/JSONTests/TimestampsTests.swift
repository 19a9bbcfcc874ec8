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
    func testFormatAroundYearMonthAndLeapBoundaries() {
        let cases: [(Int64, String)] = [
            (946_684_799_999, "1999-12-31T23:59:59.999Z"),
            (946_684_800_000, "2000-01-01T00:00:00.000Z"),
            (951_868_799_999, "2000-02-29T23:59:59.999Z"),
            (951_868_800_000, "2000-03-01T00:00:00.000Z"),
            (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
            (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
            (1_719_791_999_999, "2024-06-30T23:59:59.999Z"),
            (1_719_792_000_000, "2024-07-01T00:00:00.000Z"),
            (1_735_689_599_999, "2024-12-31T23:59:59.999Z"),
            (1_735_689_600_000, "2025-01-01T00:00:00.000Z"),
            (1_000, "1970-01-01T00:00:01.000Z"),
            (60_000, "1970-01-01T00:01:00.000Z"),
            (3_600_000, "1970-01-01T01:00:00.000Z"),
            (7, "1970-01-01T00:00:00.007Z"),
            (99, "1970-01-01T00:00:00.099Z"),
            (-86_400_000, "1969-12-31T00:00:00.000Z"),
            (-86_400_001, "1969-12-30T23:59:59.999Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ]
        for (ms, text) in cases {
            XCTAssertEqual(ISO8601Millis.format(millisecondsSince1970: ms), text, "\(ms)")
            XCTAssertEqual(ISO8601Millis.parse(text), ms, text)
        }
    }

    func testFormatOutsideFourDigitYears() {
        // Years past 9999 print in full, years before 0 with a sign (the slow path).
        XCTAssertEqual(ISO8601Millis.format(millisecondsSince1970: 253_402_300_800_000), "10000-01-01T00:00:00.000Z")
        XCTAssertEqual(ISO8601Millis.format(millisecondsSince1970: -62_167_219_200_001), "-0001-12-31T23:59:59.999Z")
        XCTAssertEqual(CalendarDate.format(daysSince1970: -719_529), "-0001-12-31")
        XCTAssertEqual(CalendarDate.format(daysSince1970: 2_932_897), "10000-01-01")
    }

    func testWriteAppendsToWhatIsThere() {
        var out = Array("x".utf8)
        ISO8601Millis.write(millisecondsSince1970: 1_396_692_930_123, to: &out)
        CalendarDate.write(daysSince1970: 0, to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "x2014-04-05T10:15:30.123Z1970-01-01")
    }

    func testAppendPadded() {
        for (value, width, text) in [(0, 2, "00"), (7, 2, "07"), (42, 2, "42"), (5, 4, "0005"), (123, 4, "0123"),
                                     (12_345, 4, "12345"), (99, 3, "099"), (100, 3, "100"), (Int.max, 1, String(Int.max))] {
            var out: [UInt8] = []
            appendPadded(value, width: width, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), text)
        }
    }
}
