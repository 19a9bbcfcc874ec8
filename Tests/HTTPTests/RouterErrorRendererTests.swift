import JSON
import Telemetry
import XCTest
@testable import HTTP

/// Routes in another API's format: their errors, a middleware's included, go to their own
/// renderer; unmatched requests under a prefix to its fallback; everything else is unchanged.
final class RouterErrorRendererTests: XCTestCase {
    struct Refusing: Middleware {
        typealias Identity = String
        func handle(_ request: Request, context: RequestContext<String>, next: (Request, RequestContext<String>) -> Response) throws -> Response {
            if request.headers["x-refuse"] != nil { throw APIError(status: 429, code: "rate_limited", message: "slow down") }
            return next(request, context)
        }
    }

    func makeResponder() -> Responder<String> {
        let router = RouterBuilder<String>()
        router.add(middleware: Refusing())
        let render: ErrorRenderer = { error, _ in
            Response(status: (error as? APIError)?.status ?? 400, body: Array("rendered".utf8))
        }
        router.get("/v1/plain", policy: .public) { _, _ in throw Boom() }
        router.on("GET", "/other/thing", policy: .public, renderError: render) { _, _ in throw Boom() }
        router.on("GET", "/other/ok", policy: .public, renderError: render) { _, _ in Response(status: 200) }
        router.fallback(prefix: "/other") { request in Response(status: 404, body: Array("fallback \(request.method)".utf8)) }
        return router.build()
    }

    func testAHandlersAndAMiddlewaresErrorsAreRendered() {
        let responder = makeResponder()
        let thrown = responder.respond(to: Request(method: "GET", path: "/other/thing"))
        XCTAssertEqual(thrown.status, 400)
        XCTAssertEqual(String(decoding: thrown.body, as: UTF8.self), "rendered")
        let refused = responder.respond(to: Request(method: "GET", path: "/other/ok", headers: HTTPHeaders([("X-Refuse", "1")])))
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(String(decoding: refused.body, as: UTF8.self), "rendered")
        // Routes without a renderer keep the router's envelope.
        let plain = responder.respond(to: Request(method: "GET", path: "/v1/plain"))
        XCTAssertEqual(plain.status, 500)
        XCTAssertEqual(try json(plain)["error"]?["code"]?.stringValue, "internal")
    }

    func testUnmatchedRequestsUnderThePrefixGoToTheFallback() throws {
        let responder = makeResponder()
        for (method, path) in [("GET", "/other/missing/deeply/nested"), ("DELETE", "/other/ok"), ("GET", "/other")] {
            let response = responder.respond(to: Request(method: method, path: path))
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "fallback \(method)", path)
            XCTAssertNotNil(response.header("X-Request-Id"))
        }
        // A path that only shares the prefix's letters is not under it.
        XCTAssertEqual(try json(responder.respond(to: Request(method: "GET", path: "/otherwise")))["error"]?["code"]?.stringValue, "not_found")
    }
}
