import XCTest
@testable import JSON

final class JSONParserTests: XCTestCase {
    func parse(_ s: String) throws(JSONParseError) -> JSONValue { try JSONValue.parse(Array(s.utf8)) }

    func testAccepted() throws {
        let cases: [(String, JSONValue)] = [
            ("null", .null),
            (" \t\r\n true \n", .bool(true)),
            ("0", .int(0)),
            ("-0", .int(0)),
            ("9223372036854775807", .int(Int64.max)),
            ("-9223372036854775808", .int(Int64.min)),
            ("9223372036854775808", .double(9_223_372_036_854_775_808)),  // too big for Int64
            ("1.5e3", .double(1500)),
            ("1E-2", .double(0.01)),
            (#""\u00e9\ud83c\udfc1""#, .string("é🏁")),
            (#""\u0000""#, .string("\u{0}")),
            (#""\/\b\f\n\r\t\"\\""#, .string("/\u{08}\u{0C}\n\r\t\"\\")),
            (#"{"a":1,"a":2}"#, .object(["a": .int(2)])),  // last wins
            (#"[1, [2, {"k": []}]]"#, .array([.int(1), .array([.int(2), .object(["k": .array([])])])])),
            ("\"é🏁\"", .string("é🏁")),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try parse(text), expected, text)
        }
    }

    /// A number beyond Double's range is still JSON: it parses as an infinity, so the field
    /// that receives it can refuse it by name.
    /// RFC 8259 leaves duplicate names to the receiver; request bodies refuse them at any depth
    /// (API.md), comparing keys once unescaped, so no two readers of one body can disagree.
    func testDuplicateKeysAreRefusedWhenAskedAtAnyDepth() throws {
        func refused(_ s: String) -> JSONParseError? {
            do {
                _ = try JSONValue.parse(Array(s.utf8), duplicateKeys: .refuse)
                return nil
            } catch {
                return error
            }
        }
        for text in [#"{"a":1,"a":2}"#, #"{"a":1,"b":2,"a":1}"#, #"{"k":{"a":null,"a":null}}"#, #"[1,[{"x":[{"a":1,"a":[]}]}]]"#,
                     #"{"a":1,"\u0061":2}"#, #"{"é":1,"\u00e9":2}"#, #"{"":1,"":2}"#,
                     // Swift compares strings by canonical equivalence, so the object would hold
                     // one of these two spellings of é; refusing is the side that never picks one.
                     #"{"é":1,"e\u0301":2}"#] {
            let error = refused(text)
            XCTAssertEqual(error?.reason, "duplicate key", text)
        }
        XCTAssertEqual(refused(#"{"a":1, "a":2}"#)?.offset, 8, "the offset is the second key's opening quote")
        XCTAssertFalse(refused(#"{"secret-name":1,"secret-name":2}"#)?.description.contains("secret") ?? true, "the error never echoes the key")
        for text in [#"{"a":1,"b":{"a":2}}"#, #"[{"a":1},{"a":2}]"#, #"{"a":1,"A":2}"#] {
            XCTAssertNil(refused(text), "\(text): not the same key twice in one object")
        }
        XCTAssertEqual(try parse(#"{"a":1,"a":2}"#), .object(["a": .int(2)]), "by default the last value wins")
    }

    func testHugeNumbersParseAsInfinities() throws {
        XCTAssertEqual(try parse("1e400"), .double(.infinity))
        XCTAssertEqual(try parse("-1e400"), .double(-.infinity))
        XCTAssertEqual(try parse("1e-400"), .double(0))
        XCTAssertNil(try parse("1e400").intValue)
    }

    func testRejected() {
        let cases: [String] = [
            "", " ", "nul", "tru", "NaN", "Infinity", "-Infinity", "+1", "01", "-01", "1.", ".5", "1e", "1e+",
            "[1,]", #"{"a":1,}"#, "[1 2]", #"{"a" 1}"#, #"{a:1}"#, "'x'", "[1] x", "{} {}", "[1]]",
            "// c\n1", "/* c */ 1", "[1 /* c */]",
            #""\ud800""#, #""\ud800x""#, #""\ud800\u0041""#, #""\udc00""#, #""\udfff\ud800""#,
            #""\x""#, #""\u12""#, #""\u12G4""#, "\"tab\there\"", "\"new\nline\"", "\"unterminated",
        ]
        for text in cases {
            XCTAssertThrowsError(try parse(text), "should reject: \(text.debugDescription)")
        }
    }

    func testInvalidUTF8Rejected() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],  // not UTF-8 at all
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate U+D800
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
            [0x22, 0x80, 0x22],  // lone continuation byte
            [0xEF, 0xBB, 0xBF, 0x31],  // BOM outside a string
            [0x5B, 0xC3, 0xA9, 0x5D],  // non-ASCII outside a string
        ]
        for bytes in cases {
            XCTAssertThrowsError(try JSONValue.parse(bytes), "should reject \(bytes)") { error in
                XCTAssertFalse((error as? JSONParseError)?.reason.isEmpty ?? true)
            }
        }
    }

    func testDepthLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try parse(ok))
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertThrowsError(try parse(tooDeep))
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        XCTAssertThrowsError(try parse(objects))
        // A hostile 1 MB of brackets fails fast without blowing the stack.
        let hostile = String(repeating: "[", count: 1_000_000)
        XCTAssertThrowsError(try parse(hostile))
    }

    func testErrorDoesNotEchoInput() {
        do {
            _ = try parse(#"{"password":"hunter2" "#)
            XCTFail("expected failure")
        } catch {
            XCTAssertFalse(error.description.contains("hunter2"))
            XCTAssertGreaterThan(error.offset, 0)
        }
    }

    func testAccessors() throws {
        let v = try parse(#"{"s":"x","i":3,"d":4.0,"f":4.5,"b":true,"a":[1],"o":{}}"#)
        XCTAssertEqual(v["s"]?.stringValue, "x")
        XCTAssertEqual(v["i"]?.intValue, 3)
        XCTAssertEqual(v["d"]?.intValue, 4)
        XCTAssertNil(v["f"]?.intValue)
        XCTAssertEqual(v["b"]?.boolValue, true)
        XCTAssertEqual(v["a"]?.arrayValue, [.int(1)])
        XCTAssertEqual(v["o"]?.objectValue, [:])
        XCTAssertNil(v["missing"])
        XCTAssertNil(v["s"]?.intValue)
    }

    func testNonContiguousInput() throws {
        let bytes = Array(#"{"k":[true]}"#.utf8)
        XCTAssertEqual(try JSONValue.parse(bytes.lazy.map { $0 }), .object(["k": .array([.bool(true)])]))
    }
}
