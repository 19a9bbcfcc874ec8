import Foundation
import JSON
import XCTest
@testable import Telemetry

final class LoggerTests: XCTestCase {
    func testLevelFilteringSkipsTheMessage() {
        let handler = InMemoryLogHandler()
        let logger = Logger(handler: handler, level: .warning)
        var evaluated = 0
        func expensive() -> String { evaluated += 1; return "built" }
        logger.debug(expensive())
        logger.info(expensive())
        logger.warning(expensive())
        logger.error("boom", ["k": "v"])
        XCTAssertEqual(evaluated, 1, "messages below the level are never built")
        XCTAssertEqual(handler.records.map(\.level), [.warning, .error])
        XCTAssertEqual(handler.records.last?.metadataValue("k"), "v")
    }

    func testLevelNames() {
        XCTAssertEqual(LogLevel(name: "debug"), .debug)
        XCTAssertEqual(LogLevel(name: "WARNING"), .warning)
        XCTAssertNil(LogLevel(name: "verbose"))
        XCTAssertTrue(LogLevel.debug < .info && LogLevel.warning < .error)
    }

    func testMetadataOrderAndWith() {
        let handler = InMemoryLogHandler()
        let logger = Logger(handler: handler).with("request_id", "abc").with("route", "/x")
        logger.info("hello", ["z": "1", "a": "2"])
        XCTAssertEqual(handler.records.first?.metadata.map(\.0), ["request_id", "route", "z", "a"])
    }

    func testJSONLinesFormat() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let logger = Logger(handler: JSONLinesLogHandler(fileDescriptor: fds[1]))
        logger.info("listening", ["listen": "127.0.0.1:8080", "quote": "a\"b\nc"])
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        XCTAssertEqual(bytes.last, 0x0A)
        XCTAssertEqual(bytes.filter { $0 == 0x0A }.count, 1, "one record, one line")
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix(#"{"ts":""#))
        XCTAssertTrue(text.contains(#""level":"info","msg":"listening","listen":"127.0.0.1:8080""#))
        let object = try JSONValue.parse(bytes.dropLast())
        XCTAssertEqual(object["quote"], .string("a\"b\nc"))
        let ts = try XCTUnwrap(object["ts"]?.stringValue)
        let millis = try XCTUnwrap(ISO8601Millis.parse(ts))
        XCTAssertLessThan(abs(millis - currentTimeMillis()), 60_000)
    }

    func testJSONLinesKeysComeFirst() {
        let record = LogRecord(level: .error, message: "m", metadata: [("a", "1")], timestampMillis: 0)
        XCTAssertEqual(
            String(decoding: JSONLinesLogHandler.format(record), as: UTF8.self),
            #"{"ts":"1970-01-01T00:00:00.000Z","level":"error","msg":"m","a":"1"}"# + "\n")
    }

    /// The null handler is the router's default: logging through it must leave stderr silent.
    /// Stderr is pointed at a pipe for the duration; a JSON-lines record written after the null
    /// one shows the capture works, and must be the only thing in the pipe.
    func testNullHandlerWritesNothing() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let savedStderr = dup(2)
        XCTAssertGreaterThanOrEqual(savedStderr, 0)
        XCTAssertEqual(dup2(fds[1], 2), 2)
        close(fds[1])
        Logger(handler: NullLogHandler(), level: .debug).error("dropped by the null handler", ["k": "v"])
        Logger(handler: JSONLinesLogHandler(fileDescriptor: 2)).info("control")
        // Restoring stderr closes the pipe's last write end, so the read below sees EOF.
        XCTAssertEqual(dup2(savedStderr, 2), 2)
        close(savedStderr)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertEqual(bytes.filter { $0 == 0x0A }.count, 1, "only the control line reached stderr: \(text)")
        XCTAssertTrue(text.contains(#""msg":"control""#), text)
        XCTAssertFalse(text.contains("dropped"), text)
    }
}
