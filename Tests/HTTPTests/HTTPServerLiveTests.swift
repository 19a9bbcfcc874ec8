import Dispatch
import Foundation
import JSON
import Synchronization
import Telemetry
import TestSupport
import XCTest
@testable import HTTP

/// Lets a test know when offloaded handlers have started, without sleeping.
final class StartedSignal: Sendable {
    let semaphore = DispatchSemaphore(value: 0)

    /// Waits for `count` signals, at most `seconds` in all; false when they did not all come.
    func wait(count: Int = 1, seconds: Double = 10) -> Bool {
        let deadline = DispatchTime.now() + seconds
        for _ in 0..<count where semaphore.wait(timeout: deadline) == .timedOut { return false }
        return true
    }
}

/// Holds the slow handlers inside their work until the test opens it, so a test states facts
/// of order ("answered while they were still running") instead of timing them. Handlers give
/// up after 10 s, so a test that fails before opening it cannot hang the suite.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func pass() { _ = semaphore.wait(timeout: .now() + 10) }

    func open(for handlers: Int) {
        for _ in 0..<handlers { semaphore.signal() }
    }
}

final class HTTPServerLiveTests: XCTestCase {
    var server: HTTPServer?
    let started = StartedSignal()
    let waiting = StartedSignal()
    let gate = Gate()
    let logs = InMemoryLogHandler()
    let metrics = MetricsRegistry()

    override func setUpWithError() throws {
        let router = RouterBuilder<String>(logger: Logger(handler: logs))
        router.get("/hello", policy: .public) { _, _ in .json(JSONValue.object(["hello": .string("world")])) }
        router.post("/echo", policy: .public) { request, _ in
            Response(status: 200, headers: [("Content-Type", "application/octet-stream")], body: request.body)
        }
        router.get("/query", policy: .public) { request, _ in .json(JSONValue.object(["q": .string(request.query["q"] ?? "")])) }
        router.get("/items/{id}", policy: .public) { _, ctx in .json(JSONValue.object(["id": .string(ctx.parameters["id"] ?? "")])) }
        let signal = started
        let gate = self.gate
        router.post("/slow", policy: .public(pool: .offload)) { _, _ in
            signal.semaphore.signal()
            gate.pass()  // stands in for bcrypt: CPU-heavy work on the offload pool
            return .json(JSONValue.object(["slow": .bool(true)]))
        }
        let waiting = self.waiting
        router.put("/wait", policy: .public(pool: .blocking)) { _, _ in
            // Stands in for a write waiting its turn at the database's writer.
            waiting.semaphore.signal()
            gate.pass()
            return .json(JSONValue.object(["waited": .bool(true)]))
        }
        // An upload route: a body limit of its own (256 KiB) and the media pool.
        router.put("/upload", policy: .public(pool: .media, maxBodyBytes: 256 * 1024)) { request, _ in
            signal.semaphore.signal()
            if request.query["hold"] != nil { gate.pass() }
            return .json(JSONValue.object(["bytes": .int(Int64(request.body.count))]))
        }
        router.add(headCheck: HeaderHeadCheck())
        var config = ServerConfiguration()
        config.port = 0
        config.threads = 2
        config.offloadThreads = 2
        config.maxLargeBodies = 2
        let server = HTTPServer(configuration: config, responder: router.build(), logger: Logger(handler: logs), metrics: metrics)
        try server.start()
        self.server = server
    }

    override func tearDown() {
        gate.open(for: 64)  // whatever a failed test left waiting
        server?.shutdown(gracePeriodSeconds: 2)
        server = nil
    }

    var port: Int { server?.boundPort ?? 0 }

    func testListeningLogLineAndPort() throws {
        XCTAssertGreaterThan(port, 0)
        let listening = logs.records.first(where: { $0.message == "listening" })
        XCTAssertEqual(listening?.metadataValue("listen"), "127.0.0.1:\(port)")
    }

    func testKeepAliveServesTwoRequestsOnOneConnection() throws {
        let client = try RawHTTPClient(port: port)
        let first = try client.request("GET", "/hello")
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.json?["hello"], .string("world"))
        XCTAssertEqual(first.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(first.header("X-Request-Id")?.count, 16)
        XCTAssertNotEqual(first.header("Connection")?.lowercased(), "close")
        let second = try client.request("POST", "/echo", body: Array("second on the same socket".utf8))
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(String(decoding: second.body, as: UTF8.self), "second on the same socket")
    }

    func testBodyEchoAndChunkedUpload() throws {
        let client = try RawHTTPClient(port: port)
        let payload = (0..<60_000).map { UInt8($0 % 251) }
        let echoed = try client.request("POST", "/echo", body: payload)
        XCTAssertEqual(echoed.status, 200)
        XCTAssertEqual(echoed.body, payload)
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        let chunked = try client.readReply()
        XCTAssertEqual(String(decoding: chunked.body, as: UTF8.self), "hello world")
    }

    func testDecodedPathQueryAnd404And405() throws {
        let client = try RawHTTPClient(port: port)
        XCTAssertEqual(try client.request("GET", "/query?q=rally+fans%21&q2=x").json?["q"], .string("rally fans!"))
        XCTAssertEqual(try client.request("GET", "/items/a%20b").json?["id"], .string("a b"))
        let missing = try client.request("GET", "/nowhere")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.errorCode, "not_found")
        let brew = try client.request("BREW", "/hello")
        XCTAssertEqual(brew.status, 405)
        XCTAssertEqual(brew.errorCode, "method_not_allowed")
        XCTAssertEqual(brew.header("Allow"), "GET, HEAD")
        let head = try client.request("HEAD", "/hello")
        XCTAssertEqual(head.status, 200)
    }

    func testDeclaredOversizeBodyIs413WithoutSendingIt() throws {
        let client = try RawHTTPClient(port: port)
        // Headers only: the server must answer without waiting for the 70,000 bytes.
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n")
        let reply = try client.readReply()
        XCTAssertEqual(reply.status, 413)
        XCTAssertEqual(reply.errorCode, "payload_too_large")
        XCTAssertEqual(reply.header("Content-Type"), "application/json; charset=utf-8")
    }

    func testChunkedBodyGrowingPastTheLimitIs413() throws {
        let client = try RawHTTPClient(port: port)
        var text = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = String(repeating: "a", count: 10_000)
        for _ in 0..<8 { text += "2710\r\n\(chunk)\r\n" }
        text += "0\r\n\r\n"
        try client.send(text)
        let reply = try client.readReply()
        XCTAssertEqual(reply.status, 413)
        XCTAssertEqual(reply.errorCode, "payload_too_large")
    }

    func testARouteWithItsOwnBodyLimitReadsMoreThanTheOthers() throws {
        let client = try RawHTTPClient(port: port)
        let payload = [UInt8](repeating: 7, count: 200_000)
        let uploaded = try client.request("PUT", "/upload", body: payload)
        XCTAssertEqual(uploaded.status, 200)
        XCTAssertEqual(uploaded.json?["bytes"], .int(200_000))
        // Every other route keeps the server's 64 KiB.
        XCTAssertEqual(try RawHTTPClient(port: port).request("POST", "/echo", body: payload).status, 413)
        // And the route's own limit is a limit: declared past it, refused before it is sent.
        let over = try RawHTTPClient(port: port)
        try over.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 300000\r\n\r\n")
        let refused = try over.readReply()
        XCTAssertEqual(refused.status, 413)
        XCTAssertEqual(refused.errorCode, "payload_too_large")
    }

    func testLargeBodiesAtOnceAreBoundedAndTheSlotsComeBack() throws {
        // Two uploads held inside their handler take both slots (maxLargeBodies = 2)...
        let held = try (0..<2).map { _ in try RawHTTPClient(port: port) }
        for client in held { try client.send("PUT /upload?hold=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc") }
        XCTAssertTrue(started.wait(count: 2))
        // ...so a third is refused before its body is read, and small requests go on.
        let third = try RawHTTPClient(port: port)
        try third.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
        let busy = try third.readReply()
        XCTAssertEqual(busy.status, 503)
        XCTAssertEqual(busy.errorCode, "unavailable")
        XCTAssertEqual(busy.header("Retry-After"), "1")
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/hello").status, 200)
        gate.open(for: 2)
        for client in held { XCTAssertEqual(try client.readReply().status, 200) }
        // Answered and completed: the slots are free again.
        XCTAssertTrue(waitUntil { (self.server?.largeBodiesInUse ?? -1) == 0 })
        XCTAssertEqual(try RawHTTPClient(port: port).request("PUT", "/upload", body: [1, 2, 3]).status, 200)
    }

    /// The head check decides before the body: a refusal is answered from the head (the
    /// handler never runs) with the connection closed; a holder with two bodies in flight gets
    /// 429 for a third, even while the server's slots are full too (that is 503 for others).
    func testLargeBodiesAreAdmittedFromTheHeadAndCountedPerHolder() throws {
        let refused = try RawHTTPClient(port: port)
        try refused.send("PUT /upload HTTP/1.1\r\nHost: x\r\nX-Refuse: 1\r\nContent-Length: 100000\r\n\r\n")
        let answer = try refused.readReply()
        XCTAssertEqual(answer.status, 401)
        XCTAssertEqual(answer.errorCode, "unauthorized")
        XCTAssertEqual(answer.header("Connection")?.lowercased(), "close")
        XCTAssertFalse(started.wait(seconds: 0.2), "the handler never ran")

        let held = try (0..<2).map { _ in try RawHTTPClient(port: port) }
        for client in held { try client.send("PUT /upload?hold=1 HTTP/1.1\r\nHost: x\r\nX-Holder: a\r\nContent-Length: 3\r\n\r\nabc") }
        XCTAssertTrue(started.wait(count: 2))
        let third = try RawHTTPClient(port: port)
        try third.send("PUT /upload HTTP/1.1\r\nHost: x\r\nX-Holder: a\r\nContent-Length: 100000\r\n\r\n")
        let limited = try third.readReply()
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.errorCode, "rate_limited")
        XCTAssertEqual(limited.header("Retry-After"), "1")
        let otherHolder = try RawHTTPClient(port: port)
        try otherHolder.send("PUT /upload HTTP/1.1\r\nHost: x\r\nX-Holder: b\r\nContent-Length: 100000\r\n\r\n")
        XCTAssertEqual(try otherHolder.readReply().status, 503, "both slots are taken")
        gate.open(for: 2)
        for client in held { XCTAssertEqual(try client.readReply().status, 200) }
        XCTAssertTrue(waitUntil { (self.server?.largeBodiesInUse ?? -1) == 0 })
        XCTAssertEqual(try RawHTTPClient(port: port).request("PUT", "/upload", body: [1, 2, 3], headers: ["X-Holder: a"]).status, 200)
    }

    func testOversizeHeadersAre431AndLongURLIs414() throws {
        let client = try RawHTTPClient(port: port)
        let filler = String(repeating: "x", count: 1_000)
        let headers = (0..<20).map { "X-Filler-\($0): \(filler)" }
        let reply = try client.request("GET", "/hello", headers: headers)
        XCTAssertEqual(reply.status, 431)
        XCTAssertNotNil(reply.errorCode)
        XCTAssertEqual(reply.header("Content-Type"), "application/json; charset=utf-8")

        let other = try RawHTTPClient(port: port)
        let long = try other.request("GET", "/hello?pad=" + String(repeating: "y", count: 20_000))
        XCTAssertEqual(long.status, 414)
        XCTAssertNotNil(long.errorCode)
    }

    func testOffloadedRequestsDoNotBlockPlainOnes() throws {
        let port = self.port
        let group = DispatchGroup()
        let slowStatuses = SlowResults()
        for _ in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let status = (try? RawHTTPClient(port: port).request("POST", "/slow", body: Array("{}".utf8)).status) ?? -1
                slowStatuses.append(status)
            }
        }
        XCTAssertTrue(started.wait(count: 2), "both offload threads took a slow request")

        for i in 0..<50 {
            // A fresh connection each time: accept and first response, both on serving threads.
            let client = try RawHTTPClient(port: port)
            let reply = try client.request("GET", "/hello")
            XCTAssertEqual(reply.status, 200, "plain GET \(i)")
        }
        XCTAssertEqual(slowStatuses.values, [], "every plain GET was answered while the offloaded ones were still held")
        gate.open(for: 8)
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success, "the slow requests finish once let go")
        XCTAssertEqual(slowStatuses.values, Array(repeating: 200, count: 8))
    }

    func testQueuedRequestsWhoseClientsLeftAreNotRun() throws {
        let port = self.port
        let slow = "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
        let holders = try (0..<2).map { _ in try RawHTTPClient(port: port) }
        for holder in holders { try holder.send(slow) }
        XCTAssertTrue(started.wait(count: 2), "both offload threads hold a slow request")
        var leaving = try (0..<3).map { _ in try RawHTTPClient(port: port) }
        for client in leaving { try client.send(slow) }
        XCTAssertTrue(waitUntil(interval: 0.005) { self.metric("pacenote_http_offload_outstanding") == 5 }, "three requests queued behind the two")
        leaving.removeAll()  // their clients give up: each socket closed
        gate.open(for: 2)
        for holder in holders { XCTAssertEqual(try holder.readReply().status, 200, "the clients still there are answered") }
        XCTAssertTrue(waitUntil(interval: 0.005) { self.metric("pacenote_http_abandoned_total") == 3 }, "the three that left are counted")
        XCTAssertFalse(started.wait(count: 1, seconds: 0.5), "no handler ran for a client that had left")
        XCTAssertTrue(waitUntil(interval: 0.005) { self.metric("pacenote_http_offload_outstanding") == 0 }, "nothing left queued or running")
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/hello").status, 200)
    }

    /// The value of an unlabelled metric as the server exposes it.
    private func metric(_ name: String) -> Double? {
        metrics.renderPrometheus().split(separator: "\n")
            .first { $0.hasPrefix(name + " ") }
            .flatMap { Double($0.split(separator: " ")[1]) }
    }

    func testBlockingRequestsWaitSideBySideWithoutBlockingPlainOnes() throws {
        let port = self.port
        let group = DispatchGroup()
        let statuses = SlowResults()
        for _ in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                statuses.append((try? RawHTTPClient(port: port).request("PUT", "/wait").status) ?? -1)
            }
        }
        // None can finish before the gate opens, so eight arrivals means eight side by side.
        XCTAssertTrue(waiting.wait(count: 8), "all eight blocking handlers are running at once")
        let reply = try RawHTTPClient(port: port).request("GET", "/hello")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(statuses.values, [], "the plain GET was answered while all eight were still waiting")
        gate.open(for: 8)
        XCTAssertEqual(group.wait(timeout: .now() + 20), .success, "the blocking requests finish once let go")
        XCTAssertEqual(statuses.values, Array(repeating: 200, count: 8))
    }

    func testGracefulShutdownFinishesInFlightOffloadedRequest() throws {
        let port = self.port
        let client = try RawHTTPClient(port: port)
        try client.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        XCTAssertTrue(started.wait(), "the slow request is running")
        let stopped = DispatchSemaphore(value: 0)
        let server = self.server
        Thread.detachNewThread {
            server?.shutdown(gracePeriodSeconds: 10)
            stopped.signal()
        }
        // Shutdown closes the listening socket first: once connecting fails, it has begun,
        // with the request still held inside its handler.
        _ = waitUntil(timeout: 10, interval: 0.01) { (try? RawHTTPClient(port: port)) == nil }
        XCTAssertThrowsError(try RawHTTPClient(port: port), "no longer accepting")
        XCTAssertEqual(stopped.wait(timeout: .now()), .timedOut, "shutdown waits for the request in flight")
        gate.open(for: 1)
        let reply = try client.readReply()
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json?["slow"], .bool(true))
        XCTAssertEqual(stopped.wait(timeout: .now() + 15), .success, "shutdown returns once the request is done")
        self.server = nil
    }

    func testStartFailsNamingBindWhenPortIsTaken() throws {
        var config = ServerConfiguration()
        config.port = port
        let second = HTTPServer(
            configuration: config, responder: RouterBuilder<String>().build(), logger: Logger(handler: NullLogHandler()),
            metrics: MetricsRegistry())
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual((error as? HTTPServerError)?.function, "bind")
            XCTAssertEqual((error as? HTTPServerError)?.errno, EADDRINUSE)
        }
    }
}

final class SlowResults: Sendable {
    let storage = Mutex<[Int]>([])
    func append(_ v: Int) { storage.withLock { $0.append(v) } }
    var values: [Int] { storage.withLock { $0 } }
}

extension HTTPServerLiveTests {
    func testConflictingContentLengthsAre400Envelope() throws {
        let client = try RawHTTPClient(port: port)
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc")
        let reply = try client.readReply()
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.errorCode, "bad_request")
    }
}

/// Refuses a large body whose head has `X-Refuse`, and counts it under `X-Holder`.
struct HeaderHeadCheck: HeadCheck {
    func holder(of head: Request, context: RequestContext<String>) throws -> BodyHolder? {
        if head.headers["x-refuse"] != nil { throw APIError(status: 401, code: "unauthorized", message: "Sign in to do that.") }
        return head.headers["x-holder"].map(BodyHolder.init)
    }
}
