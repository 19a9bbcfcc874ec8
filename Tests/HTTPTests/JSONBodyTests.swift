import JSON
import XCTest
@testable import HTTP

final class JSONBodyTests: XCTestCase {
    func body(_ s: String) -> Request { Request(method: "POST", path: "/", body: Array(s.utf8)) }

    func expectError(_ code: String, field: String? = nil, _ block: () throws -> Void, line: UInt = #line) {
        do {
            try block()
            XCTFail("expected \(code)", line: line)
        } catch let error as APIError {
            XCTAssertEqual(error.status, 400, line: line)
            XCTAssertEqual(error.code, code, line: line)
            XCTAssertEqual(error.field, field, line: line)
        } catch {
            XCTFail("unexpected \(error)", line: line)
        }
    }

    func testParseRefusals() {
        expectError("bad_request") { _ = try JSONBody.parse(body("")) }
        expectError("bad_request") { _ = try JSONBody.parse(body("[1]")) }
        expectError("bad_request") { _ = try JSONBody.parse(body("{\"a\":")) }
        expectError("bad_request") { _ = try JSONBody.parse(body(#"{"a":"\ud800"}"#)) }
        expectError("bad_request") { _ = try JSONBody.parse(Request(method: "POST", path: "/", body: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) }
        expectError("bad_request") {
            _ = try JSONBody.parse(body(String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)))
        }
        expectError("bad_request") { _ = try JSONBody.parse(body(#"{"username":"a","username":"b"}"#)) }
        expectError("bad_request") { _ = try JSONBody.parse(body(#"{"settings":{"likes":true,"likes":false}}"#)) }
        do {
            _ = try JSONBody.parse(body(""))
        } catch {
            XCTAssertEqual(error.message, "Request body must be a JSON object.")
        }
    }

    /// Numbers outside a field's range are `validation_failed` naming the field, whatever their spelling.
    func testOutOfRangeNumbersNameTheField() throws {
        for spelling in ["1e400", "-1e400", "1e20", "99999999999999999999", "1.5"] {
            let b = try JSONBody.parse(body(#"{"day":\#(spelling)}"#))
            expectError("validation_failed", field: "day") { _ = try b.int("day") }
        }
    }

    func testAccessors() throws {
        let b = try JSONBody.parse(body(#"{"s":"x","i":5,"f":1.5,"b":false,"o":{"k":"v"},"n":null}"#))
        XCTAssertEqual(try b.string("s"), "x")
        XCTAssertEqual(try b.requireString("s"), "x")
        XCTAssertNil(try b.string("missing"))
        XCTAssertNil(try b.string("n"))
        XCTAssertTrue(b.has("n"))
        XCTAssertFalse(b.has("missing"))
        XCTAssertEqual(try b.int("i"), 5)
        XCTAssertEqual(try b.requireInt("i"), 5)
        XCTAssertEqual(try b.bool("b"), false)
        XCTAssertEqual(try b.object("o")?.string("k"), "v")
        XCTAssertEqual(b.raw.count, 6)

        expectError("validation_failed", field: "i") { _ = try b.string("i") }
        expectError("validation_failed", field: "missing") { _ = try b.requireString("missing") }
        expectError("validation_failed", field: "f") { _ = try b.int("f") }
        expectError("validation_failed", field: "s") { _ = try b.requireInt("s") }
        expectError("validation_failed", field: "s") { _ = try b.bool("s") }
        expectError("validation_failed", field: "s") { _ = try b.object("s") }
    }

    func testQueryInt() throws {
        let r = Request(method: "GET", path: "/", query: ["limit": "50", "bad": "x", "big": "101", "empty": ""])
        XCTAssertEqual(try queryInt(r, "limit", default: 20, range: 1...100), 50)
        XCTAssertEqual(try queryInt(r, "absent", default: 20, range: 1...100), 20)
        XCTAssertEqual(try queryInt(r, "empty", default: 20, range: 1...100), 20)
        expectError("validation_failed", field: "bad") { _ = try queryInt(r, "bad", default: 20, range: 1...100) }
        expectError("validation_failed", field: "big") { _ = try queryInt(r, "big", default: 20, range: 1...100) }
    }
}
