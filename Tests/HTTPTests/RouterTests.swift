import JSON
import Synchronization
import Telemetry
import XCTest
@testable import HTTP

struct Boom: Error {
    let secret = "hunter2"
}

/// Records the order middleware ran in.
struct Tracing: Middleware {
    typealias Identity = String
    let name: String
    let trace: Mutex<[String]>.Box

    func handle(_ request: Request, context: RequestContext<String>, next: (Request, RequestContext<String>) -> Response) throws -> Response {
        trace.append("\(name) in")
        var context = context
        context.identity = (context.identity ?? "") + name
        let response = next(request, context)
        trace.append("\(name) out \(response.status)")
        return response
    }
}

extension Mutex where Value == [String] {
    /// A shareable, lock-protected list for tests.
    final class Box: Sendable {
        let m = Mutex<[String]>([])
        func append(_ s: String) { m.withLock { $0.append(s) } }
        var values: [String] { m.withLock { $0 } }
    }
}

func json(_ response: Response) throws -> JSONValue {
    try JSONValue.parse(response.body)
}

final class RouterTests: XCTestCase {
    func makeResponder(logs: InMemoryLogHandler = InMemoryLogHandler(), trace: Mutex<[String]>.Box? = nil) -> Responder<String> {
        let router = RouterBuilder<String>(logger: Logger(handler: logs, level: .debug))
        if let trace {
            router.add(middleware: Tracing(name: "A", trace: trace))
            router.add(middleware: Tracing(name: "B", trace: trace))
        }
        router.get("/v1/users/{id}", policy: .publicRead) { _, ctx in
            var w = JSONWriter()
            w.beginObject()
            w.field("id", try ctx.parameters.require("id"))
            w.field("route", ctx.route)
            w.field("identity", ctx.identity)
            w.endObject()
            return .json(writer: w)
        }
        router.get("/v1/users/me", policy: .session) { _, _ in .json(JSONValue.object(["me": .bool(true)])) }
        router.put("/v1/users/{userId}/follow", policy: .session(limit: RouteLimit("writes"))) { _, ctx in
            .json(JSONValue.object(["followed": .string(ctx.parameters["userId"] ?? "")]))
        }
        router.delete("/v1/users/{id}", policy: .session(pool: .blocking)) { _, _ in .noContent() }
        router.post("/v1/sessions", policy: .public(pool: .offload)) { _, _ in .json(201, JSONValue.object([:])) }
        router.get("/fail/api", policy: .public) { _, _ in throw APIError.validation("title", "Title is too long.") }
        router.get("/fail/nofield", policy: .public) { _, _ in throw APIError.notFound("No such video.") }
        router.get("/fail/other", policy: .public) { _, _ in throw Boom() }
        return router.build()
    }

    func testParameterExtractionAndTrailingSlash() throws {
        let responder = makeResponder()
        for path in ["/v1/users/42", "/v1/users/42/"] {
            let r = responder.respond(to: Request(method: "GET", path: path))
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(try json(r)["id"], .string("42"))
            XCTAssertEqual(try json(r)["route"], .string("/v1/users/{id}"))
            XCTAssertEqual(r.header("Content-Type"), "application/json; charset=utf-8")
        }
        let follow = responder.respond(to: Request(method: "PUT", path: "/v1/users/7/follow"))
        XCTAssertEqual(try json(follow)["followed"], .string("7"))
    }

    func testLiteralWinsOverParameter() throws {
        let responder = makeResponder()
        let me = responder.respond(to: Request(method: "GET", path: "/v1/users/me"))
        XCTAssertEqual(try json(me)["me"], .bool(true))
        // A method only the parameter route has still reaches it.
        XCTAssertEqual(responder.respond(to: Request(method: "DELETE", path: "/v1/users/me")).status, 204)
        // A deeper route behind the parameter branch is found through the literal sibling.
        XCTAssertEqual(responder.respond(to: Request(method: "PUT", path: "/v1/users/me/follow")).status, 200)
    }

    func testNotFoundEnvelope() throws {
        let r = makeResponder().respond(to: Request(method: "GET", path: "/nope"))
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual(try json(r), .object(["error": .object(["code": .string("not_found"), "message": .string("Not found.")])]))
        XCTAssertEqual(r.header("X-Request-Id")?.count, 16)
        XCTAssertEqual(makeResponder().respond(to: Request(method: "GET", path: "/v1/users")).status, 404)
        XCTAssertEqual(makeResponder().respond(to: Request(method: "GET", path: "/v1/users/1/2/3")).status, 404)
    }

    func testMethodNotAllowedWithAllow() throws {
        let r = makeResponder().respond(to: Request(method: "POST", path: "/v1/users/42"))
        XCTAssertEqual(r.status, 405)
        XCTAssertEqual(try json(r)["error"]?["code"], .string("method_not_allowed"))
        XCTAssertEqual(r.header("Allow"), "DELETE, GET, HEAD")
    }

    func testUnknownMethodIs405Everywhere() throws {
        let responder = makeResponder()
        XCTAssertEqual(responder.respond(to: Request(method: "BREW", path: "/v1/users/42")).status, 405)
        XCTAssertEqual(responder.respond(to: Request(method: "BREW", path: "/coffee")).status, 405)
        XCTAssertEqual(responder.respond(to: Request(method: "get", path: "/v1/users/42")).status, 405)
    }

    func testHeadAnswersLikeGetWithoutBody() {
        let r = makeResponder().respond(to: Request(method: "HEAD", path: "/v1/users/42"))
        XCTAssertEqual(r.status, 200)
        XCTAssertTrue(r.body.isEmpty)
        XCTAssertNotNil(r.header("X-Request-Id"))
    }

    func testAPIErrorEnvelope() throws {
        let responder = makeResponder()
        let withField = responder.respond(to: Request(method: "GET", path: "/fail/api"))
        XCTAssertEqual(withField.status, 400)
        XCTAssertEqual(
            String(decoding: withField.body, as: UTF8.self),
            #"{"error":{"code":"validation_failed","message":"Title is too long.","field":"title"}}"#)
        let withoutField = responder.respond(to: Request(method: "GET", path: "/fail/nofield"))
        XCTAssertEqual(withoutField.status, 404)
        XCTAssertNil(try json(withoutField)["error"]?["field"], "field omitted when nil")
    }

    func testOtherErrorsBecome500AndAreLoggedWithRequestID() throws {
        let logs = InMemoryLogHandler()
        let r = makeResponder(logs: logs).respond(
            to: Request(method: "GET", path: "/fail/other", headers: HTTPHeaders([("Authorization", "Bearer SECRET-TOKEN")]), body: Array("password=hunter2".utf8)))
        XCTAssertEqual(r.status, 500)
        XCTAssertEqual(try json(r)["error"]?["code"], .string("internal"))
        let requestID = try XCTUnwrap(r.header("X-Request-Id"))
        let errors = logs.records.filter { $0.level == .error }
        XCTAssertEqual(errors.count, 1)
        XCTAssertEqual(errors.first?.metadataValue("request_id"), requestID)
        XCTAssertEqual(errors.first?.metadataValue("error_type"), "HTTPTests.Boom")
        let everything = logs.records.map { $0.message + $0.metadata.map { "\($0.0)=\($0.1)" }.joined() }.joined()
        XCTAssertFalse(everything.contains("hunter2"))
        XCTAssertFalse(everything.contains("SECRET-TOKEN"))
    }

    func testMiddlewareOrderAndFinalStatus() throws {
        let trace = Mutex<[String]>.Box()
        let responder = makeResponder(trace: trace)
        let ok = responder.respond(to: Request(method: "GET", path: "/v1/users/1"))
        XCTAssertEqual(try json(ok)["identity"], .string("AB"))
        _ = responder.respond(to: Request(method: "GET", path: "/fail/api"))
        XCTAssertEqual(trace.values, ["A in", "B in", "B out 200", "A out 200", "A in", "B in", "B out 400", "A out 400"])
    }

    func testMetricsMiddlewareSeesThrownStatus() {
        let registry = MetricsRegistry()
        let router = RouterBuilder<String>()
        router.add(middleware: MetricsMiddleware<String>(registry: registry))
        router.get("/v1/videos/{id}", policy: .public) { _, _ in throw APIError.notFound() }
        let responder = router.build()
        _ = responder.respond(to: Request(method: "GET", path: "/v1/videos/9"))
        let text = registry.renderPrometheus()
        XCTAssertTrue(text.contains(#"pacenote_http_requests_total{route="/v1/videos/{id}",method="GET",status="404"} 1"#), text)
        XCTAssertTrue(text.contains(#"pacenote_http_request_duration_seconds_count{route="/v1/videos/{id}"} 1"#), text)
    }

    /// An error a middleware throws goes through the router's error mapper like a handler's,
    /// even with MetricsMiddleware outside it (which once turned it into 500 `internal`).
    func testMiddlewareErrorsGoThroughTheMapper() throws {
        struct Busy: Error {}
        struct ThrowingMiddleware: Middleware {
            func handle(_ request: Request, context: RequestContext<String>, next: (Request, RequestContext<String>) -> Response) throws -> Response {
                throw Busy()
            }
        }
        let registry = MetricsRegistry()
        let router = RouterBuilder<String>(mapError: { error in
            error is Busy ? APIError(status: 503, code: "unavailable", message: "Busy.", headers: [("Retry-After", "1")]) : nil
        })
        router.add(middleware: MetricsMiddleware<String>(registry: registry))
        router.add(middleware: ThrowingMiddleware())
        router.get("/v1/users/me", policy: .session) { _, _ in .noContent() }
        let r = router.build().respond(to: Request(method: "GET", path: "/v1/users/me"))
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(try json(r)["error"]?["code"], .string("unavailable"))
        XCTAssertEqual(r.header("Retry-After"), "1")
        XCTAssertTrue(registry.renderPrometheus().contains(#"route="/v1/users/me",method="GET",status="503"} 1"#))
    }

    func testPolicyPoolAndRouteList() {
        let responder = makeResponder()
        XCTAssertEqual(responder.workerPool(for: Request(method: "POST", path: "/v1/sessions")), .offload)
        XCTAssertEqual(responder.workerPool(for: Request(method: "DELETE", path: "/v1/users/1")), .blocking)
        XCTAssertNil(responder.workerPool(for: Request(method: "GET", path: "/v1/users/1")))
        XCTAssertNil(responder.workerPool(for: Request(method: "GET", path: "/v1/sessions")))
        XCTAssertTrue(responder.routes.contains(where: { $0.method == "PUT" && $0.pattern == "/v1/users/{userId}/follow" }))
        XCTAssertEqual(responder.routes.count, 8)
    }

    /// A pooled GET with a literal path (the data export) is found by its path alone; every
    /// other GET is answered on its serving thread without a second match; HEAD goes where its
    /// GET goes; a pooled route with parameters still matches as before.
    func testPooledLiteralPathsAndHead() {
        let router = RouterBuilder<String>()
        router.get("/v1/users/me/export", policy: .public(pool: .blocking)) { _, _ in .noContent() }
        router.get("/v1/users/{id}", policy: .public) { _, _ in .noContent() }
        router.delete("/v1/users/{id}", policy: .public(pool: .blocking)) { _, _ in .noContent() }
        let responder = router.build()
        XCTAssertEqual(responder.pooledLiteralPaths, ["GET": ["/v1/users/me/export"]])
        XCTAssertEqual(responder.workerPool(for: Request(method: "GET", path: "/v1/users/me/export")), .blocking)
        XCTAssertEqual(responder.workerPool(for: Request(method: "GET", path: "/v1/users/me/export/")), .blocking)
        XCTAssertEqual(responder.workerPool(for: Request(method: "HEAD", path: "/v1/users/me/export")), .blocking)
        XCTAssertNil(responder.workerPool(for: Request(method: "GET", path: "/v1/users/me")))
        XCTAssertNil(responder.workerPool(for: Request(method: "GET", path: "/v1/users/me/exports")))
        XCTAssertNil(responder.workerPool(for: Request(method: "HEAD", path: "/v1/users/x")))
        XCTAssertEqual(responder.workerPool(for: Request(method: "DELETE", path: "/v1/users/x")), .blocking)
    }

    /// Each matched route's policy reaches the middleware as registered (a HEAD answered by a GET
    /// route gets that route's), and nothing else: middleware never decide from route names.
    func testTheMatchedRoutesPolicyIsInTheContext() {
        final class Seen: Sendable {
            let policies = Mutex<[RoutePolicy]>([])
        }
        struct Recording: Middleware {
            let seen: Seen
            func handle(_ request: Request, context: RequestContext<String>, next: (Request, RequestContext<String>) -> Response) throws -> Response {
                seen.policies.withLock { $0.append(context.policy) }
                return next(request, context)
            }
        }
        let seen = Seen()
        let router = RouterBuilder<String>()
        router.add(middleware: Recording(seen: seen))
        router.get("/v1/things/{id}", policy: .publicRead) { _, _ in .noContent() }
        router.post("/v1/things", policy: .session(limit: RouteLimit("writes"), pool: .blocking)) { _, _ in .noContent() }
        let responder = router.build()
        _ = responder.respond(to: Request(method: "GET", path: "/v1/things/1"))
        _ = responder.respond(to: Request(method: "HEAD", path: "/v1/things/1"))
        _ = responder.respond(to: Request(method: "POST", path: "/v1/things"))
        _ = responder.respond(to: Request(method: "GET", path: "/v1/nothing"))
        XCTAssertEqual(seen.policies.withLock { $0 }, [.publicRead, .publicRead, RoutePolicy(access: .session, limit: RouteLimit("writes"), pool: .blocking)])
        XCTAssertEqual(responder.routes.map(\.policy), [.publicRead, .session(limit: RouteLimit("writes"), pool: .blocking)])
        XCTAssertEqual(responder.workerPool(for: Request(method: "POST", path: "/v1/things")), .blocking)
    }

    func testARoutesOwnBodyLimit() {
        let router = RouterBuilder<String>()
        router.put("/v1/users/me/avatar", policy: .session(pool: .media, maxBodyBytes: 10 << 20)) { _, _ in .noContent() }
        router.put("/v1/users/me", policy: .session) { _, _ in .noContent() }
        let responder = router.build()
        XCTAssertEqual(responder.maxBodyBytes(for: Request(method: "PUT", path: "/v1/users/me/avatar")), 10 << 20)
        XCTAssertEqual(responder.workerPool(for: Request(method: "PUT", path: "/v1/users/me/avatar")), .media)
        XCTAssertNil(responder.maxBodyBytes(for: Request(method: "PUT", path: "/v1/users/me")))
        XCTAssertNil(responder.maxBodyBytes(for: Request(method: "POST", path: "/v1/users/me/avatar")))
    }

    func testRequestIDsDiffer() {
        let responder = makeResponder()
        let ids = Set((0..<50).compactMap { _ in responder.respond(to: Request(method: "GET", path: "/x")).header("X-Request-Id") })
        XCTAssertEqual(ids.count, 50)
        XCTAssertTrue(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
    }
}
