import Dispatch
import Foundation
import JSON
import Synchronization
import Telemetry
import TestSupport
import XCTest
@testable import HTTP

/// What the streaming producers of these tests did, for the tests to look at.
final class StreamRecord: Sendable {
    struct State {
        var parts = 0
        var ends: [String] = []
    }
    let state = Mutex(State())

    var parts: Int { state.withLock { $0.parts } }
    var ends: [String] { state.withLock { $0.ends } }
}

/// `parts` parts of `size` bytes each, byte i of the whole body being `i % 251`; after `failAfter`
/// parts it throws; while `gate` is set each part first waits on it.
struct CountingProducer: ResponseStreamProducer {
    let parts: Int
    let size: Int
    let failAfter: Int?
    let record: StreamRecord
    let gate: Gate?
    let started: StartedSignal?
    var made = 0

    struct Broken: Error {}

    mutating func next(into chunk: inout [UInt8]) throws -> Bool {
        started?.semaphore.signal()
        gate?.pass()
        if let failAfter, made >= failAfter { throw Broken() }
        let start = made * size
        for i in 0..<size { chunk.append(UInt8((start + i) % 251)) }
        made += 1
        record.state.withLock { $0.parts += 1 }
        return made < parts
    }

    mutating func finish(_ end: ResponseStreamEnd) {
        let name = switch end {
        case .completed: "completed"
        case .abandoned: "abandoned"
        case .failed: "failed"
        }
        record.state.withLock { $0.ends.append(name) }
    }
}

final class StreamedResponseTests: XCTestCase {
    var server: HTTPServer?
    let record = StreamRecord()
    let gate = Gate()
    let started = StartedSignal()
    let logs = InMemoryLogHandler()
    let metrics = MetricsRegistry()

    override func setUpWithError() throws {
        let router = RouterBuilder<String>(logger: Logger(handler: logs))
        let record = self.record, gate = self.gate, started = self.started
        let headers = [("Content-Type", "application/octet-stream")]
        router.get("/hello", policy: .public) { _, _ in .json(JSONValue.object(["hello": .string("world")])) }
        // Answered on the serving thread; its parts are made on the blocking pool.
        router.get("/stream", policy: .public) { request, _ in
            let parts = Int(request.query["parts"] ?? "") ?? 1
            let size = Int(request.query["size"] ?? "") ?? 1_000
            let failAfter = request.query["fail"].flatMap { Int($0) }
            return .streamed(headers: headers, CountingProducer(
                parts: parts, size: size, failAfter: failAfter, record: record,
                gate: request.query["hold"] != nil ? gate : nil, started: started))
        }
        // Answered from the blocking pool (as the export is).
        router.get("/pooled-stream", policy: .public(pool: .blocking)) { request, _ in
            .streamed(headers: headers, CountingProducer(
                parts: Int(request.query["parts"] ?? "") ?? 1, size: 10_000, failAfter: nil, record: record, gate: nil, started: nil))
        }
        var config = ServerConfiguration()
        config.port = 0
        config.threads = 2
        config.blockingThreads = 4
        let server = HTTPServer(configuration: config, responder: router.build(), logger: Logger(handler: logs), metrics: metrics)
        try server.start()
        self.server = server
    }

    override func tearDown() {
        gate.open(for: 64)
        server?.shutdown(gracePeriodSeconds: 2)
        server = nil
    }

    var port: Int { server?.boundPort ?? 0 }

    static func expected(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

    func metric(_ name: String, _ end: String) -> Double {
        let line = metrics.renderPrometheus().split(separator: "\n").first { $0.hasPrefix("\(name){end=\"\(end)\"}") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1
    }

    func testAProducerOfManyPartsIsSentWholeAndChunkedThenTheConnectionIsKept() throws {
        let client = try RawHTTPClient(port: port)
        // 300 parts of 10,000 bytes: 3 MB, far more than MHD's 64 KiB connection pool, so
        // every part goes out in several reads of MHD.
        let reply = try client.request("GET", "/stream?parts=300&size=10000")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.header("Transfer-Encoding")?.lowercased(), "chunked")
        XCTAssertNil(reply.header("Content-Length"))
        XCTAssertEqual(reply.header("Content-Type"), "application/octet-stream")
        XCTAssertEqual(reply.header("X-Request-Id")?.count, 16)
        XCTAssertEqual(reply.body.count, 3_000_000)
        XCTAssertTrue(reply.body == Self.expected(3_000_000), "the parts arrive whole and in order")
        XCTAssertTrue(waitUntil { self.record.ends == ["completed"] })
        XCTAssertEqual(record.parts, 300)
        XCTAssertEqual(metric("pacenote_http_streams_total", "completed"), 1)
        // The same connection serves the next request, streamed or not.
        XCTAssertEqual(try client.request("GET", "/hello").status, 200)
        XCTAssertEqual(try client.request("GET", "/pooled-stream?parts=3").body, Self.expected(30_000))
    }

    func testEmptyPartsAndAnEmptyBodyAreFine() throws {
        let client = try RawHTTPClient(port: port)
        let reply = try client.request("GET", "/stream?parts=5&size=0")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.body, [])
        XCTAssertTrue(waitUntil { self.record.ends == ["completed"] })
    }

    func testPartsAreMadeOffTheServingThreads() throws {
        // Two serving threads; four streams whose producers are all held inside a part.
        let held = try (0..<4).map { _ in try RawHTTPClient(port: port) }
        for client in held { try client.send("GET /stream?parts=2&size=10&hold=1 HTTP/1.1\r\nHost: x\r\n\r\n") }
        XCTAssertTrue(started.wait(count: 4), "all four producers are waiting inside next(into:)")
        // The serving threads are free all the same.
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/hello").status, 200)
        gate.open(for: 8)
        for client in held { XCTAssertEqual(try client.readReply().body, Self.expected(20)) }
    }

    func testAClientThatLeavesMidStreamStopsTheProducer() throws {
        let client = try RawHTTPClient(port: port)
        // An endless body for practical purposes: 100,000 parts of 10,000 bytes (1 GB).
        try client.send("GET /stream?parts=100000&size=10000 HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readRaw(atLeast: 200_000)
        let partsWhenLeft = record.parts
        XCTAssertLessThan(partsWhenLeft, 1_000, "a part is made only once the previous one is taken")
        withExtendedLifetime(client) {}
        close(client.fd)
        XCTAssertTrue(waitUntil(timeout: 10) { self.record.ends == ["abandoned"] }, "the producer is told, got \(record.ends)")
        let partsAtEnd = record.parts
        XCTAssertLessThan(partsAtEnd - partsWhenLeft, 200, "no part is made for a client that left beyond what the socket buffers held")
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(record.parts, partsAtEnd, "and none after the end")
        XCTAssertEqual(metric("pacenote_http_streams_total", "abandoned"), 1)
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/hello").status, 200)
    }

    func testAProducerThatThrowsCutsTheResponseShortAndIsLogged() throws {
        let client = try RawHTTPClient(port: port)
        try client.send("GET /stream?parts=10&size=1000&fail=3 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertThrowsError(try client.readReply(), "the chunked body never ends: the client knows it is incomplete") { error in
            XCTAssertTrue("\(error)".contains("connection closed"), "\(error)")
        }
        XCTAssertTrue(waitUntil { self.record.ends == ["failed"] })
        XCTAssertEqual(record.parts, 3)
        let line = logs.records.first { $0.message == "streamed response cut short" }
        XCTAssertEqual(line?.metadataValue("error_type"), String(reflecting: CountingProducer.Broken.self))
        XCTAssertEqual(line?.metadataValue("request_id")?.count, 16)
        XCTAssertEqual(metric("pacenote_http_streams_total", "failed"), 1)
    }

    func testHeadMakesNoPart() throws {
        let client = try RawHTTPClient(port: port)
        let reply = try client.request("HEAD", "/stream?parts=10&size=1000")
        XCTAssertEqual(reply.status, 200)
        XCTAssertTrue(waitUntil { self.record.ends == ["abandoned"] })
        XCTAssertEqual(record.parts, 0)
    }

    func testShutdownWithAStreamUnderWayEnds() throws {
        let client = try RawHTTPClient(port: port)
        try client.send("GET /stream?parts=100000&size=10000 HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readRaw(atLeast: 100_000)
        // The client stops reading; the server stops within its grace period all the same.
        let stopping = Date()
        server?.shutdown(gracePeriodSeconds: 1)
        server = nil
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 5)
        XCTAssertTrue(waitUntil { self.record.ends.count == 1 }, "the producer is told how it ended: \(record.ends)")
    }
}
