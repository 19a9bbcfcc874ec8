import Crypto
import HTTP
import XCTest
@testable import Community
@testable import SocialAPI

final class CursorCodecTests: XCTestCase {
    private let codec = CursorCodec(key: HMACKey(bytes: Array(repeating: 7, count: 32)))
    private let scope = "GET /v1/videos/{id}/comments|id=abc"

    private func assertInvalid(_ cursor: String, scope: String? = nil, codec: CursorCodec? = nil, _ message: String = "", line: UInt = #line) {
        do {
            let position = try (codec ?? self.codec).decode(cursor, scope: scope ?? self.scope)
            XCTFail("accepted \(message): \(position)", line: line)
        } catch {
            XCTAssertEqual(error, .unreadable, line: line)
            let answer = APIErrors.map(error)
            XCTAssertEqual(answer.status, 400, line: line)
            XCTAssertEqual(answer.code, "invalid_cursor", line: line)
            XCTAssertEqual(answer.field, "cursor", line: line)
        }
    }

    func testEveryValueKindRoundTrips() throws {
        let positions: [[CursorValue]] = [
            [],
            [.int(0)], [.int(1)], [.int(-1)], [.int(Int64.max)], [.int(Int64.min)], [.int(1_733_000_000_123)],
            [.string("")], [.string("aB3xY9kQ2z")], [.string("Rallye Monte-Carlo 🏁 é \u{0} \"quote\" ü")],
            [.string(String(repeating: "ж", count: 200))],
            [.double(0)], [.double(-2.5)], [.double(.pi)], [.double(.greatestFiniteMagnitude)], [.double(-.infinity)],
            [.double(.leastNonzeroMagnitude)],
            [.int(1_733_000_000_123), .string("aB3xY9kQ2z")],
            [.double(12.75), .int(-42), .string("ключ"), .int(Int64.min), .double(-0.0)],
        ]
        for position in positions {
            let cursor = codec.encode(position, scope: scope)
            XCTAssertEqual(try codec.decode(cursor, scope: scope), position)
            XCTAssertTrue(cursor.utf8.allSatisfy { $0 < 0x80 && !"=+/ ".utf8.contains($0) }, cursor)
        }
        // Doubles come back bit for bit, even where == can't tell (-0.0) or always fails (NaN).
        let odd: [Double] = [-0.0, .nan, Double(bitPattern: 0x7FF8_0000_0000_1234)]
        for value in odd {
            guard case .double(let back)? = try codec.decode(codec.encode([.double(value)], scope: scope), scope: scope).first else {
                return XCTFail("not a double")
            }
            XCTAssertEqual(back.bitPattern, value.bitPattern)
        }
    }

    func testATypicalPositionMakesAShortCursor() {
        let cursor = codec.encode([.int(1_733_000_000_123), .string("aB3xY9kQ2z")], scope: scope)
        XCTAssertLessThan(cursor.count, 60, cursor)
    }

    func testEncodingIsDeterministic() {
        let position: [CursorValue] = [.int(5), .string("x")]
        XCTAssertEqual(codec.encode(position, scope: scope), codec.encode(position, scope: scope))
    }

    func testAnyChangedCharacterIsRefused() throws {
        let cursor = codec.encode([.int(1_733_000_000_123), .string("aB3xY9kQ2z")], scope: scope)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var characters = Array(cursor)
        for index in characters.indices {
            let original = characters[index]
            for replacement in alphabet where replacement != original {
                characters[index] = replacement
                assertInvalid(String(characters), "character \(index) -> \(replacement)")
            }
            characters[index] = original
        }
        XCTAssertEqual(String(characters), cursor)
    }

    func testAnyFlippedBitIsRefused() throws {
        let cursor = codec.encode([.int(-3), .double(1.5), .string("é")], scope: scope)
        let bytes = try XCTUnwrap(Base64URL.decode(cursor))
        for index in bytes.indices {
            for bit in 0..<8 {
                var tampered = bytes
                tampered[index] ^= 1 << bit
                assertInvalid(Base64URL.encode(tampered), "byte \(index) bit \(bit)")
            }
        }
        // Cut or extended cursors are refused too.
        assertInvalid(Base64URL.encode(bytes.dropLast()), "truncated")
        assertInvalid(Base64URL.encode(bytes.dropFirst()), "front cut")
        assertInvalid(Base64URL.encode(bytes + [0]), "extended")
        assertInvalid(cursor + "A", "extra character")
    }

    func testACursorOfAnotherListIsRefused() throws {
        let position: [CursorValue] = [.int(1_733_000_000_123), .string("aB3xY9kQ2z")]
        let cursor = codec.encode(position, scope: "GET /v1/videos/{id}/comments|id=abc")
        XCTAssertEqual(try codec.decode(cursor, scope: "GET /v1/videos/{id}/comments|id=abc"), position)
        assertInvalid(cursor, scope: "GET /v1/videos/{id}/comments|id=abd", "another video")
        assertInvalid(cursor, scope: "GET /v1/videos/{id}/likes|id=abc", "another route")
        assertInvalid(cursor, scope: "GET /v1/videos/{id}/comments|id=abc|", "longer scope")
        assertInvalid(cursor, scope: "", "empty scope")

        // The length prefix keeps scope and payload apart: moving bytes between them fails.
        let sort = codec.encode([.int(1)], scope: "GET /v1/rallies/{id}/days/{n}/videos|id=r|n=1|sort=recent")
        assertInvalid(sort, scope: "GET /v1/rallies/{id}/days/{n}/videos|id=r|n=1|sort=top", "another sort")
    }

    func testGarbageIsRefused() {
        for garbage in ["", "A", "AA", "====", "not a cursor", "abc+/def", "%00", "null", "🏁🏁🏁🏁",
                        String(repeating: "A", count: 22), String(repeating: "A", count: 48)] {
            assertInvalid(garbage, "garbage \(garbage)")
        }
        // Long input is refused before decoding, even when otherwise well formed.
        assertInvalid(String(repeating: "A", count: 5_000), "5 KB")
        let longButValid = codec.encode([.string(String(repeating: "x", count: 2_000))], scope: scope)
        XCTAssertGreaterThan(longButValid.utf8.count, CursorCodec.maximumLength)
        assertInvalid(longButValid, "over 1 KiB")
    }

    func testAValidTagOverAnUnreadablePayloadIsRefused() {
        // Payloads the parser must refuse even when authenticated: wrong version, unknown tag,
        // a string running past the end, invalid UTF-8, a truncated double, an endless varint.
        let key = HMACKey(bytes: Array(repeating: 7, count: 32))
        let payloads: [[UInt8]] = [
            [0x02], [0x01, 0x09], [0x01, 0x02, 0x05, 0x61], [0x01, 0x02, 0x01, 0xFF], [0x01, 0x03, 0, 0, 0],
            [0x01, 0x01] + Array(repeating: 0xFF, count: 11), [0x01, 0x01, 0x80],
        ]
        for payload in payloads {
            var input: [UInt8] = []
            let length = UInt64(scope.utf8.count)
            for shift in stride(from: 56, through: 0, by: -8) { input.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
            input += Array(scope.utf8) + payload
            let cursor = Base64URL.encode(payload + key.authenticationCode(for: input).prefix(16))
            assertInvalid(cursor, "payload \(payload)")
        }
    }

    func testACursorMadeUnderAnotherKeyIsRefused() {
        let other = CursorCodec(key: HMACKey(bytes: Array(repeating: 8, count: 32)))
        let cursor = other.encode([.int(1)], scope: scope)
        XCTAssertEqual(try other.decode(cursor, scope: scope), [.int(1)])
        assertInvalid(cursor, "another key")
    }
}
