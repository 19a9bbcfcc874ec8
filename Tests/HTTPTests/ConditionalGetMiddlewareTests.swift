import JSON
import XCTest
@testable import HTTP

/// Signs the request in when it has an `Authorization` header, as an application's auth would.
private struct HeaderSignIn: Middleware {
    typealias Identity = String
    func handle(_ request: Request, context: RequestContext<String>, next: (Request, RequestContext<String>) -> Response) -> Response {
        var context = context
        context.identity = request.headers["authorization"]
        return next(request, context)
    }
}

private struct OneChunk: ResponseStreamProducer {
    mutating func next(into chunk: inout [UInt8]) throws -> Bool {
        chunk = Array("{}".utf8)
        return false
    }
}

final class ConditionalGetMiddlewareTests: XCTestCase {
    func makeResponder() -> Responder<String> {
        let router = RouterBuilder<String>()
        router.add(middleware: HeaderSignIn())
        router.add(middleware: ConditionalGetMiddleware<String>(skippingPrefixes: ["/parse"]))
        router.get("/v1/thing", policy: .public) { request, _ in
            var w = JSONWriter()
            w.beginObject()
            w.field("value", request.query["v"] ?? "one")
            w.endObject()
            return .json(writer: w)
        }
        router.get("/v1/missing", policy: .public) { _, _ in throw APIError.notFound() }
        router.get("/v1/text", policy: .public) { _, _ in Response(status: 200, headers: [("Content-Type", "text/plain")], body: Array("hi".utf8)) }
        router.get("/v1/tagged", policy: .public) { _, _ in
            Response(status: 200, headers: [Response.jsonContentType, ("ETag", "\"own\""), ("Cache-Control", "public, max-age=60")], body: Array("{}".utf8))
        }
        router.get("/v1/stream", policy: .public) { _, _ in .streamed(headers: [Response.jsonContentType], OneChunk()) }
        router.get("/parse/classes/X", policy: .public) { _, _ in Response(status: 200, headers: [Response.jsonContentType], body: Array("{}".utf8)) }
        router.on("POST", "/v1/thing", policy: .public) { _, _ in Response(status: 200, headers: [Response.jsonContentType], body: Array("{}".utf8)) }
        return router.build()
    }

    func get(_ responder: Responder<String>, _ path: String, method: String = "GET", query: [String: String] = [:],
             headers: [(String, String)] = []) -> Response {
        responder.respond(to: Request(method: method, path: path, query: query, headers: HTTPHeaders(headers)))
    }

    func testA200JSONAnswerCarriesItsBodysTagAndARepeatIs304WithoutABody() throws {
        let responder = makeResponder()
        let first = get(responder, "/v1/thing")
        XCTAssertEqual(first.status, 200)
        let etag = try XCTUnwrap(first.header("ETag"))
        XCTAssertEqual(etag, EntityTag.strong(of: first.body))
        XCTAssertEqual(first.header("Cache-Control"), "no-cache")

        let again = get(responder, "/v1/thing", headers: [("If-None-Match", etag)])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(again.header("ETag"), etag)
        XCTAssertEqual(again.header("Cache-Control"), "no-cache")
        XCTAssertNil(again.header("Content-Type"))
        XCTAssertNotNil(again.header("X-Request-Id"))

        XCTAssertEqual(get(responder, "/v1/thing", headers: [("If-None-Match", "W/" + etag)]).status, 304, "weak comparison")
        XCTAssertEqual(get(responder, "/v1/thing", headers: [("If-None-Match", "\"other\", " + etag)]).status, 304, "a list")
        XCTAssertEqual(get(responder, "/v1/thing", headers: [("if-none-match", "*")]).status, 304, "*, any case of the name")
    }

    func testAChangedBodyIsA200WithANewTag() throws {
        let responder = makeResponder()
        let etag = try XCTUnwrap(get(responder, "/v1/thing").header("ETag"))
        let changed = get(responder, "/v1/thing", query: ["v": "two"], headers: [("If-None-Match", etag)])
        XCTAssertEqual(changed.status, 200)
        XCTAssertFalse(changed.body.isEmpty)
        XCTAssertNotEqual(changed.header("ETag"), etag)
    }

    func testASessionsAnswerIsPrivate() {
        let response = get(makeResponder(), "/v1/thing", headers: [("Authorization", "Bearer x")])
        XCTAssertEqual(response.header("Cache-Control"), "private, no-cache")
    }

    func testHeadIsLikeGet() throws {
        let responder = makeResponder()
        let etag = try XCTUnwrap(get(responder, "/v1/thing").header("ETag"))
        let head = get(responder, "/v1/thing", method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("ETag"), etag)
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(get(responder, "/v1/thing", method: "HEAD", headers: [("If-None-Match", etag)]).status, 304)
    }

    func testErrorsOtherTypesStreamsOwnTagsWritesAndSkippedPrefixesAreLeftAlone() {
        let responder = makeResponder()
        let missing = get(responder, "/v1/missing", headers: [("If-None-Match", "*")])
        XCTAssertEqual(missing.status, 404)
        XCTAssertNil(missing.header("ETag"))
        XCTAssertNil(get(responder, "/v1/text").header("ETag"))
        let tagged = get(responder, "/v1/tagged")
        XCTAssertEqual(tagged.header("ETag"), "\"own\"")
        XCTAssertEqual(tagged.header("Cache-Control"), "public, max-age=60")
        let stream = get(responder, "/v1/stream", headers: [("If-None-Match", "*")])
        XCTAssertEqual(stream.status, 200)
        XCTAssertNil(stream.header("ETag"))
        XCTAssertNotNil(stream.stream)
        let post = get(responder, "/v1/thing", method: "POST", headers: [("If-None-Match", "*")])
        XCTAssertEqual(post.status, 200)
        XCTAssertNil(post.header("ETag"))
        XCTAssertNil(get(responder, "/parse/classes/X").header("ETag"))
    }
}
