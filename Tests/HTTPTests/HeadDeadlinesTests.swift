import XCTest
@testable import HTTP

#if canImport(Glibc)
import Glibc
#endif

final class RequestHeadScreenTests: XCTestCase {
    func testNULAnywhereInTheHeadIsRefused() {
        XCTAssertTrue(RequestHeadScreen.refuses([0, 1, 2] + Array(" nonsense ".utf8) + [0xFF, 13, 10, 13, 10]))
        XCTAssertTrue(RequestHeadScreen.refuses(Array("\r\n".utf8) + [0] + Array("GET / HTTP/1.1\r\n".utf8)), "after tolerated empty lines")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET /a".utf8) + [0] + Array("b HTTP/1.1\r\n\r\n".utf8)), "in the request line")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\nX-A: ".utf8) + [0]), "in a header of an unfinished head")
    }

    func testARequestLineWithoutThreePartsIsRefused() {
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET\r\n\r\n".utf8)))
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET /\r\n\r\n".utf8)), "HTTP/0.9's shape")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("\r\nnonsense\n".utf8)), "after a tolerated empty line")
        XCTAssertFalse(RequestHeadScreen.refuses(Array("GET /".utf8)), "a line still arriving")
    }

    /// RFC 9112 section 5.2: obs-fold (a field line starting with SP or HTAB) is refused, since
    /// libmicrohttpd 0.9.75 would splice it onto the previous field where a proxy may not.
    func testObsFoldIsRefused() {
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\n\r\n".utf8)), "a folded Transfer-Encoding")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\nHost: x\r\nX-A: one\r\n\ttwo\r\n\r\n".utf8)), "folded with a tab")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\n Host: x\r\n\r\n".utf8)), "whitespace before the first field")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\nHost: x\n two\n\n".utf8)), "after bare LF line ends")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\nHost: x\r\n ".utf8)), "in a head still arriving")
        XCTAssertEqual(RequestHeadScreen.refusal(Array("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n".utf8)), .obsFold)
    }

    /// RFC 9112 section 2.2: a CR not followed by LF is invalid; libmicrohttpd ends a line there.
    func testABareCRIsRefused() {
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rX-B: b\r\n\r\n".utf8)), "in a field value")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET /a\rb HTTP/1.1\r\nHost: x\r\n\r\n".utf8)), "in the request line")
        XCTAssertTrue(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\nHost: x\r\r\n\r\n".utf8)), "a CR before a CRLF")
        XCTAssertEqual(RequestHeadScreen.refusal(Array("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n".utf8)), .bareCR)
        XCTAssertFalse(RequestHeadScreen.refuses(Array("GET / HTTP/1.1\r\nHost: x\r".utf8)), "a CR that may yet be followed by its LF")
        XCTAssertFalse(RequestHeadScreen.refuses(Array("POST / HTTP/1.1\r\nContent-Length: 6\r\n\r\n a\rb\r".utf8)), "a body may hold CRs and start with a space")
    }

    func testValidHeadsAndBodiesPass() {
        XCTAssertFalse(RequestHeadScreen.refuses(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        XCTAssertFalse(RequestHeadScreen.refuses(Array("\r\n\r\nGET / HTTP/1.1\r\n\r\n".utf8)), "empty lines before the request line")
        XCTAssertFalse(RequestHeadScreen.refuses(Array("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n".utf8) + [0, 0, 0]), "NULs in a body")
        XCTAssertFalse(RequestHeadScreen.refuses(Array("POST / HTTP/1.1\nA: b\n\n".utf8) + [0]), "bare LF line ends")
        XCTAssertFalse(RequestHeadScreen.refuses([UInt8]()), "nothing yet")
    }
}

final class HeadDeadlinesTests: XCTestCase {
    /// A connected pair of sockets: [0] plays the server's side, [1] the client's.
    private func socketPair() throws -> [Int32] {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return fds
    }

    private func peerSeesEndOfFile(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 1_000) > 0 else { return false }
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    func testALateHeadIsShutDownOnceAndAPromptOneIsNot() throws {
        let late = try socketPair(), prompt = try socketPair()
        defer { (late + prompt).forEach { close($0) } }
        let expired = ConnectionCounter()
        let keptAlive = ConnectionCounter()
        let deadlines = HeadDeadlines(timeoutMillis: 2_000) { neverServed, idle in
            expired.add(neverServed)
            keptAlive.add(idle)
        }
        let lateRecord = ConnectionRecord(socket: late[0], waitingSince: 10_000)
        let promptRecord = ConnectionRecord(socket: prompt[0], waitingSince: 10_000)
        deadlines.register(lateRecord)
        deadlines.register(promptRecord)

        XCTAssertEqual(deadlines.sweep(now: 11_999), 0, "not yet due")
        XCTAssertTrue(promptRecord.headArrived())
        XCTAssertEqual(deadlines.sweep(now: 12_000), 1, "due at exactly the deadline")
        XCTAssertTrue(peerSeesEndOfFile(late[1]), "the late connection's socket is shut down")
        XCTAssertFalse(lateRecord.headArrived(), "a head completing after the deadline is not served")
        XCTAssertEqual(deadlines.sweep(now: 20_000), 0, "a connection is taken once; one in a request is never taken")
        XCTAssertEqual(expired.total, 1)

        // After its response, the kept-alive connection's next head has a deadline of its own.
        promptRecord.awaitHead(since: 20_000)
        XCTAssertEqual(deadlines.sweep(now: 21_999), 0)
        XCTAssertEqual(deadlines.sweep(now: 22_000), 1)
        XCTAssertTrue(peerSeesEndOfFile(prompt[1]))
        XCTAssertEqual(expired.total, 1, "reported apart: it had been served")
        XCTAssertEqual(keptAlive.total, 1)
    }

    /// A large body is due `bodyTimeoutMillis` after its head: late, its connection gets the
    /// 408 written on it and is shut down; ended in time, the serving thread takes it back and
    /// the sweep never writes on it.
    func testALateLargeBodyIsAnsweredOnceAndOneInTimeIsNotTouched() throws {
        let late = try socketPair(), prompt = try socketPair()
        defer { (late + prompt).forEach { close($0) } }
        let answered = ConnectionCounter()
        let deadlines = HeadDeadlines(timeoutMillis: 1_000, bodyTimeoutMillis: 5_000, onExpired: { _, _ in },
                                      onLateBodies: { answered.add($0) }, lateBodyAnswer: { Array("late".utf8) })
        let lateRecord = ConnectionRecord(socket: late[0], waitingSince: 1_000)
        let promptRecord = ConnectionRecord(socket: prompt[0], waitingSince: 1_000)
        for record in [lateRecord, promptRecord] {
            deadlines.register(record)
            XCTAssertTrue(record.headArrived())
            record.awaitBody(since: 2_000)
        }
        XCTAssertEqual(deadlines.sweep(now: 6_999), 0, "the head deadline no longer applies; the body's is not due yet")
        XCTAssertTrue(promptRecord.bodyArrived(), "a body ending in time")
        XCTAssertTrue(promptRecord.bodyArrived(), "asked again after a resume: still the request's")
        XCTAssertEqual(deadlines.sweep(now: 7_000), 1, "due at exactly 5 s after the head")
        XCTAssertEqual(answered.total, 1)
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(recv(late[1], &buffer, buffer.count, 0), 4, "the answer came first")
        XCTAssertEqual(Array(buffer.prefix(4)), Array("late".utf8))
        XCTAssertTrue(peerSeesEndOfFile(late[1]), "then the socket is shut down")
        XCTAssertFalse(lateRecord.bodyArrived(), "a body ending after its deadline is not served: the answer was written")
        XCTAssertEqual(deadlines.sweep(now: 60_000), 0, "answered once; the one in its request is never taken")
        XCTAssertEqual(recv(prompt[1], &buffer, buffer.count, Int32(MSG_DONTWAIT)), -1, "nothing was written on the prompt one")
    }

    func testAnUnregisteredConnectionIsNeverTouched() throws {
        let pair = try socketPair()
        defer { pair.forEach { close($0) } }
        let deadlines = HeadDeadlines(timeoutMillis: 1_000) { _, _ in }
        let record = ConnectionRecord(socket: pair[0], waitingSince: 1)
        deadlines.register(record)
        deadlines.unregister(record)
        XCTAssertEqual(deadlines.sweep(now: 1_000_000), 0, "MHD reported it closed: its descriptor may already be someone else's")
        XCTAssertEqual(deadlines.openConnections, 0)
    }
}

private final class ConnectionCounter: @unchecked Sendable {  // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
    var total: Int { lock.lock(); defer { lock.unlock() }; return count }
}
