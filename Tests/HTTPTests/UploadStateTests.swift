import XCTest
@testable import HTTP

final class UploadStateTests: XCTestCase {
    func machine() -> UploadState { UploadState(maxBodyBytes: 10, maxHeaderBytes: 100) }

    func status(_ action: UploadState.Action) -> Int? {
        if case .queue(let r) = action { return r.status }
        if case .reject(let e) = action { return e.status }
        return nil
    }

    func testDeclaredSizesAreCheckedBeforeTheBody() {
        var m = machine()
        XCTAssertEqual(status(m.begin(requestLineBytes: 10, headerBytes: 10, contentLength: "11")), 413)
        m = machine()
        XCTAssertEqual(status(m.begin(requestLineBytes: 101, headerBytes: 10, contentLength: nil)), 414)
        m = machine()
        XCTAssertEqual(status(m.begin(requestLineBytes: 10, headerBytes: 101, contentLength: nil)), 431)
        m = machine()
        XCTAssertEqual(status(m.begin(requestLineBytes: 10, headerBytes: 10, contentLength: "12abc")), 400)
        m = machine()
        XCTAssertEqual(m.begin(requestLineBytes: 10, headerBytes: 10, contentLength: "10"), .continueReading)
    }

    func testBodyIsCollectedThenProcessed() {
        var m = machine()
        _ = m.begin(requestLineBytes: 1, headerBytes: 1, contentLength: nil)
        let chunk: [UInt8] = [1, 2, 3]
        XCTAssertEqual(chunk.withUnsafeBytes { m.receive($0) }, .continueReading)
        XCTAssertEqual(chunk.withUnsafeBytes { m.receive($0) }, .continueReading)
        XCTAssertEqual(m.uploadFinished(), .process)
        XCTAssertEqual(m.body, [1, 2, 3, 1, 2, 3])
        m.complete(Response(status: 201))
        XCTAssertEqual(status(m.uploadFinished()), 201)
    }

    func testChunkedBodyPastTheLimitIs413AfterDiscarding() {
        var m = machine()
        _ = m.begin(requestLineBytes: 1, headerBytes: 1, contentLength: nil)
        let chunk = [UInt8](repeating: 7, count: 6)
        XCTAssertEqual(chunk.withUnsafeBytes { m.receive($0) }, .continueReading)
        XCTAssertEqual(chunk.withUnsafeBytes { m.receive($0) }, .continueReading)
        XCTAssertTrue(m.body.isEmpty, "over-limit bytes are not kept")
        XCTAssertEqual(status(m.uploadFinished()), 413)
    }

    func testEndlessChunkedBodyClosesTheConnection() {
        var m = machine()
        _ = m.begin(requestLineBytes: 1, headerBytes: 1, contentLength: nil)
        let chunk = [UInt8](repeating: 7, count: 100)
        var last = UploadState.Action.continueReading
        for _ in 0..<3 { last = chunk.withUnsafeBytes { m.receive($0) } }
        XCTAssertEqual(last, .close)
    }
}
