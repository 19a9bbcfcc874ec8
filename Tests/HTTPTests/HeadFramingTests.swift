import XCTest
@testable import HTTP

/// `HeadFraming` on fields as libmicrohttpd reports them (names as received, duplicates kept).
final class HeadFramingTests: XCTestCase {
    private func status(_ headers: [(String, String)], version: String = "HTTP/1.1") -> Int? {
        HeadFraming(headers: headers, version: version).refusal?.status
    }

    func testOrdinaryHeadsPass() {
        let plain = HeadFraming(headers: [("Host", "x"), ("Content-Length", "12")], version: "HTTP/1.1")
        XCTAssertNil(plain.refusal)
        XCTAssertEqual(plain.contentLength, "12")
        XCTAssertNil(status([("host", "x"), ("Transfer-Encoding", "chunked")]), "chunked, any case of the names")
        XCTAssertNil(status([("Host", "x"), ("Transfer-Encoding", "Chunked")]), "the coding's name is case-insensitive")
        XCTAssertNil(status([("Host", "x"), ("Content-Length", "5"), ("Content-Length", "5")]), "a repeated, equal Content-Length")
        XCTAssertNil(status([("Host", "")]), "an empty Host (RFC 9112 section 3.2)")
        XCTAssertNil(status([], version: "HTTP/1.0"), "HTTP/1.0 needs no Host")
    }

    func testWhitespaceInAFieldNameIs400() {
        XCTAssertEqual(status([("Host", "x"), ("Transfer-Encoding ", "chunked")]), 400, "a space before the colon")
        XCTAssertEqual(status([("Host", "x"), ("X-A\t", "b")]), 400, "a tab before the colon")
        XCTAssertEqual(status([(" Host", "x")]), 400, "a first field line starting with a space")
        XCTAssertEqual(HeadFraming(headers: [("Host", "x"), ("A B", "c")], version: "HTTP/1.1").refusal?.code, "bad_request")
    }

    func testHostMissingOnHTTP11OrRepeatedIs400() {
        XCTAssertEqual(status([("Accept", "*/*")]), 400, "no Host")
        XCTAssertEqual(status([("Host", "a"), ("host", "b")]), 400, "two Hosts")
        XCTAssertEqual(status([("Host", "a"), ("Host", "a")], version: "HTTP/1.0"), 400, "two Hosts, even equal, even on HTTP/1.0")
    }

    func testContentLengthConflictsAre400() {
        XCTAssertEqual(status([("Host", "x"), ("Content-Length", "7"), ("Content-Length", "9")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Content-Length", "5"), ("Transfer-Encoding", "chunked")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Transfer-Encoding", "gzip"), ("Content-Length", "5")]), 400, "a conflict before an unknown coding")
    }

    func testAnyTransferCodingButOneChunkedIs501() {
        for codings in [["gzip, chunked"], ["foo"], ["chunked, chunked"], ["chunked", "chunked"], ["identity"], [""]] {
            let framing = HeadFraming(headers: [("Host", "x")] + codings.map { ("Transfer-Encoding", $0) }, version: "HTTP/1.1")
            XCTAssertEqual(framing.refusal?.status, 501, "\(codings)")
            XCTAssertEqual(framing.refusal?.code, "bad_request", "\(codings)")
        }
    }
}
