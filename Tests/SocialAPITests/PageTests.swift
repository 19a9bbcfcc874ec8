import Crypto
import HTTP
import JSON
import XCTest
@testable import Community
@testable import SocialAPI

final class PageTests: XCTestCase {
    private let codec = CursorCodec(key: HMACKey(bytes: Array(repeating: 1, count: 32)))
    private let scope = "GET /v1/feed/home|caller=u1"

    private struct Row {
        var time: Int64
        var id: String
    }

    private func rows(_ count: Int) -> [Row] {
        (1...count).map { Row(time: 1_000 - Int64($0), id: "v\($0)") }
    }

    private func json(_ page: Page<String>) throws -> [String: Any] {
        var writer = JSONWriter()
        page.encode(to: &writer)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(writer.bytes), options: [.fragmentsAllowed]) as? [String: Any])
    }

    private func request(_ query: [String: String]) -> Request {
        Request(method: "GET", path: "/v1/feed/home", query: query)
    }

    func testAnExtraRowMakesANextCursorForTheLastItemShown() throws {
        let page = Page<String>.make(rows: rows(21), limit: 20, scope: scope, codec: codec,
                                     position: { [.int($0.time), .string($0.id)] }, items: { $0.map(\.id) })
        XCTAssertEqual(page.items, (1...20).map { "v\($0)" })
        let cursor = try XCTUnwrap(page.nextCursor)
        XCTAssertEqual(try codec.decode(cursor, scope: scope), [.int(980), .string("v20")])

        let body = try json(page)
        XCTAssertEqual(body["items"] as? [String], page.items)
        XCTAssertEqual(body["nextCursor"] as? String, cursor)
    }

    func testTheLastPageHasANullCursor() throws {
        for count in [5, 20] {
            let page = Page<String>.make(rows: rows(count), limit: 20, scope: scope, codec: codec,
                                         position: { [.int($0.time), .string($0.id)] }, items: { $0.map(\.id) })
            XCTAssertEqual(page.items.count, count)
            XCTAssertNil(page.nextCursor)
            let body = try json(page)
            XCTAssertTrue(body["nextCursor"] is NSNull, "\(body)")
        }
        let empty = Page<String>.make(rows: [Row](), limit: 20, scope: scope, codec: codec, position: { _ in [] }, items: { $0.map(\.id) })
        var writer = JSONWriter()
        empty.encode(to: &writer)
        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), #"{"items":[],"nextCursor":null}"#)
    }

    func testLimitDefaultsTo20AndStaysWithin1To100() throws {
        XCTAssertEqual(try PageRequest.parse(request([:]), codec: codec, scope: scope).limit, 20)
        XCTAssertNil(try PageRequest.parse(request([:]), codec: codec, scope: scope).after)
        XCTAssertEqual(try PageRequest.parse(request(["limit": "1"]), codec: codec, scope: scope).limit, 1)
        XCTAssertEqual(try PageRequest.parse(request(["limit": "100"]), codec: codec, scope: scope).limit, 100)
        for bad in ["0", "101", "-1", "abc", "1.5", "99999999999999999999"] {
            XCTAssertThrowsError(try PageRequest.parse(request(["limit": bad]), codec: codec, scope: scope), bad) { error in
                let error = error as? APIError
                XCTAssertEqual(error?.status, 400)
                XCTAssertEqual(error?.code, "validation_failed")
                XCTAssertEqual(error?.field, "limit")
            }
        }
    }

    func testTheCursorIsDecodedForTheListsScope() throws {
        let cursor = codec.encode([.int(5), .string("v5")], scope: scope)
        let next = try PageRequest.parse(request(["limit": "10", "cursor": cursor]), codec: codec, scope: scope)
        XCTAssertEqual(next.limit, 10)
        XCTAssertEqual(next.after, [.int(5), .string("v5")])
        // An empty cursor parameter is the first page, like an empty limit is the default.
        XCTAssertNil(try PageRequest.parse(request(["cursor": ""]), codec: codec, scope: scope).after)

        for (query, otherScope) in [(["cursor": cursor], "GET /v1/feed/home|caller=u2"), (["cursor": "garbage"], scope)] {
            XCTAssertThrowsError(try PageRequest.parse(request(query), codec: codec, scope: otherScope)) { error in
                XCTAssertEqual((error as? APIError)?.code, "invalid_cursor")
                XCTAssertEqual((error as? APIError)?.field, "cursor")
            }
        }
    }
}
