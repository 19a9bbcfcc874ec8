import Foundation
import XCTest

/// API.md "Details clients rely on": every answer with a body (JSON, errors included, HTML,
/// images) carries `X-Content-Type-Options: nosniff`, exactly once, also where a route sets it
/// itself (the pages, the pictures) and where the server refuses a request before routing it.
final class ContentTypeOptionsTests: ServerTestCase {
    override class var serverArguments: [String] { ["--public-web", "--public-url", "https://pacenote.example/"] }

    private func assertNosniffOnce(_ result: HTTPResult, _ status: Int, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, status, "\(context): \(result)", file: file, line: line)
        XCTAssertFalse(result.body.isEmpty, "\(context): an answer with a body", file: file, line: line)
        XCTAssertEqual(result.headers.values("X-Content-Type-Options"), ["nosniff"], "\(context): \(result.headers)", file: file, line: line)
    }

    func testEveryKindOfAnswerWithABodyCarriesNosniffOnce() throws {
        let owner = try client.signup()
        assertNosniffOnce(try client.me(owner.token), 200, "a JSON success")
        assertNosniffOnce(try client.request("GET", "/v1/users/me"), 401, "a JSON error")
        assertNosniffOnce(try client.request("GET", "/no/such/path"), 404, "an unknown path")
        // Refused before routing, from the declared length: the body is never sent.
        let tooLarge = try XCTUnwrap(client.sendRaw(Array("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 70000\r\n\r\n".utf8)),
                                     "an answer to a declared body over 64 KiB")
        assertNosniffOnce(tooLarge, 413, "a refusal before routing")
        assertNosniffOnce(try client.request("GET", "/u/\(owner.username)"), 200, "a public HTML page")
        let me = assertSuccess(try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"],
                                                  body: try imageFixture("landscape.jpg"), token: owner.token), 200)
        // Absolute on the public host (--public-url): served at its path.
        let picture = try XCTUnwrap(URLComponents(string: try XCTUnwrap(me["avatarUrl"] as? String))?.path)
        assertNosniffOnce(try client.request("GET", picture), 200, "a picture")
    }
}
