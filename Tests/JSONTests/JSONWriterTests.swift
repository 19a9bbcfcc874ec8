import Foundation
import XCTest
@testable import JSON

final class JSONWriterTests: XCTestCase {
    static let hostileStrings: [String] = [
        "",
        "plain",
        "quote \" and backslash \\ and slash /",
        "\\\"\\\\\"",
        "newline\n return\r tab\t backspace\u{08} formfeed\u{0C}",
        "nul\u{0}in the middle\u{0}",
        String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }),
        "delete \u{7F}",
        "emoji 🏎️💨 flags 🇫🇮 family 👨‍👩‍👧",
        "line separators \u{2028} and \u{2029}",
        "accents Rallye Portugal Ñandú ß",
        "</script><script>alert(1)</script>",
        String(repeating: "é🏁\u{1}\"", count: 2_500),  // 10,000 characters of mixed Unicode
    ]

    func testHostileStringsRoundTripThroughBothParsers() throws {
        for s in Self.hostileStrings {
            var w = JSONWriter()
            w.beginObject()
            w.field("value", s)
            w.field("list", array: [s, s])
            w.endObject()
            let bytes = w.bytes
            XCTAssertNotNil(String(validating: bytes, as: UTF8.self), "writer output must be valid UTF-8")
            // No raw control characters may survive in the output.
            XCTAssertFalse(bytes.contains(where: { $0 < 0x20 }))

            let ours = try JSONValue.parse(bytes)
            XCTAssertEqual(ours["value"], .string(s))
            XCTAssertEqual(ours["list"], .array([.string(s), .string(s)]))

            let foundation = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            XCTAssertEqual(foundation?["value"] as? String, s)
        }
    }

    func testUTF8BytesAreWrittenAsStringsWouldBe() throws {
        // Text read in place from a database arrives as bytes: valid UTF-8 must come out as the
        // same String would, and anything else as String's decoding repairs it.
        var inputs: [[UInt8]] = Self.hostileStrings.map { Array($0.utf8) }
        inputs += [[0xFF], [0x41, 0xC3], [0xE2, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF], Array("ok".utf8) + [0x80]]
        for bytes in inputs {
            var fromBytes = JSONWriter()
            fromBytes.beginArray()
            bytes.withUnsafeBytes { fromBytes.value(utf8: $0) }
            fromBytes.value(utf8: nil)
            fromBytes.endArray()
            var fromString = JSONWriter()
            fromString.beginArray()
            fromString.value(String(decoding: bytes, as: UTF8.self))
            fromString.null()
            fromString.endArray()
            XCTAssertEqual(fromBytes.bytes, fromString.bytes, "\(bytes)")
            XCTAssertNotNil(String(validating: fromBytes.bytes, as: UTF8.self))
        }
    }

    func testEveryByteAtEveryPositionOfAWordIsCheckedLikeAByteAtATime() {
        // The plain-ASCII check reads eight bytes at a time: each byte that needs care (controls,
        // quote, backslash, non-ASCII), at each position of a word and of the tail, with plain
        // bytes around it that sit at the edges of the ranges it tests (space, '!', '#', '[', ']', DEL).
        let neighbours: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x41]
        for length in 1...19 {
            for position in 0..<length {
                for special: UInt8 in [0x00, 0x01, 0x1F, 0x22, 0x5C, 0x80, 0xC3, 0xE2, 0xFF] + neighbours {
                    for neighbour in neighbours {
                        var bytes = [UInt8](repeating: neighbour, count: length)
                        bytes[position] = special
                        let plain = bytes.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C }
                        bytes.withUnsafeBufferPointer {
                            XCTAssertEqual(JSONWriter.isPlainASCII($0), plain, "\(bytes)")
                        }
                    }
                }
            }
        }
    }

    func testPartsAndEncodedValues() throws {
        var inner = JSONWriter()
        inner.beginObject()
        inner.field("a", 1)
        inner.endObject()
        var w = JSONWriter()
        w.beginArray()
        w.value("https://example.com/", "id\"x", "/end")
        w.encoded(inner.bytes)
        w.encoded(inner.bytes)
        w.endArray()
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), #"["https://example.com/id\"x/end",{"a":1},{"a":1}]"#)
    }

    func testLineSeparatorsAreEscaped() {
        var w = JSONWriter()
        w.value("a\u{2028}b\u{2029}c")
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), #""a\u2028b\u2029c""#)
    }

    func testControlCharactersUseShortAndLongForms() {
        var w = JSONWriter()
        w.value("\n\r\t\u{08}\u{0C}\u{0}\u{1F}")
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), #""\n\r\t\b\f\u0000\u001f""#)
    }

    func testCommasAndScalars() {
        var w = JSONWriter()
        w.beginObject()
        w.field("a", 1)
        w.field("b", Int64.min)
        w.field("c", true)
        w.field("d", nil as String?)
        w.field("e", Double.nan)
        w.field("f", 2.5)
        w.key("g")
        w.writeArray([1, 2, 3]) { w, i in w.value(i) }
        w.key("h")
        w.beginArray()
        w.endArray()
        w.key("i")
        w.beginObject()
        w.endObject()
        w.endObject()
        XCTAssertEqual(
            String(decoding: w.bytes, as: UTF8.self),
            #"{"a":1,"b":-9223372036854775808,"c":true,"d":null,"e":null,"f":2.5,"g":[1,2,3],"h":[],"i":{}}"#)
    }

    func testIntegersMatchTheirDescription() {
        var values: [Int64] = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1_000, 65_535, -1, -9, -10, -99, -100,
                               Int64(Int32.max), Int64(Int32.min), Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var power: Int64 = 1
        while power <= Int64.max / 10 {
            values += [power - 1, power, power + 1, -power]
            power *= 10
        }
        for i in values {
            var w = JSONWriter()
            w.value(i)
            XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), String(i))
        }
    }

    func testStringsWithoutEscapesAreCopiedAsTheyAre() {
        for s in ["", "a", "abcDEF0123456789", "Rallye Portugal Ñandú ß 🏎️", "/slash is fine/", "\u{7F} delete", "\u{2027}\u{202A}"] {
            var w = JSONWriter()
            w.value(s)
            XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), "\"" + s + "\"")
        }
        // 0xE2 starts many characters besides U+2028/9; only those two are escaped.
        var w = JSONWriter()
        w.value("\u{2026}\u{2028}\u{20AC}")
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), #""…\u2028€""#)
    }

    func testJSONValueRoundTrip() throws {
        let value = JSONValue.object([
            "n": .null, "b": .bool(false), "i": .int(-42), "d": .double(0.1),
            "s": .string("x\u{0}y"), "a": .array([.int(1), .object([:])]),
        ])
        var w = JSONWriter()
        w.value(value)
        XCTAssertEqual(try JSONValue.parse(w.bytes), value)
    }
}
