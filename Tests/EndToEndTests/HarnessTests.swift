import Foundation
import XCTest

/// The harness itself, against stand-in scripts: a server that never says "listening" must fail
/// the test quickly and say why, never hang the suite.
final class HarnessTests: XCTestCase {
    private var scripts: [URL] = []

    override func tearDown() {
        for script in scripts { try? FileManager.default.removeItem(at: script) }
        super.tearDown()
    }

    private func script(_ body: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fake-pacenote-\(UUID().uuidString).sh")
        try "#!/bin/sh\n\(body)\n".write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        scripts.append(url)
        return url.path
    }

    func testProcessThatExitsEarlyFailsAtOnceWithItsOutput() throws {
        let fake = try TestServer(binary: try script(#"echo '{"msg":"starting"}' >&2; echo 'database is locked' >&2; echo pacenote; exit 3"#))
        let started = Date()
        XCTAssertThrowsError(try fake.start(timeout: 20)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("status 3"), text)
            XCTAssertTrue(text.contains("database is locked"), "the stderr seen is in the message: \(text)")
            XCTAssertTrue(text.contains("pacenote"), "stdout too: \(text)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "an exited process is noticed without waiting for the timeout")
    }

    func testSilentProcessTimesOutAndIsKilled() throws {
        let fake = try TestServer(binary: try script("echo 'warming up' >&2; exec sleep 30"))
        let started = Date()
        XCTAssertThrowsError(try fake.start(timeout: 1)) { error in
            XCTAssertTrue("\(error)".contains("within 1.0 s"), "\(error)")
            XCTAssertTrue("\(error)".contains("warming up"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertFalse(fake.isRunning, "the silent process was killed")
    }

    func testListeningLineGivesThePortAndStopSendsSIGTERM() throws {
        let fake = try TestServer(binary: try script(#"""
            trap 'echo "{\"msg\":\"stopping\"}" >&2; exit 0' TERM
            echo "{\"level\":\"info\",\"msg\":\"listening\",\"listen\":\"127.0.0.1:4242\"}" >&2
            while true; do sleep 0.05; done
            """#))
        try fake.start(timeout: 10)
        XCTAssertEqual(fake.port, 4242)
        XCTAssertEqual(fake.stop(timeout: 5), 0, "the trap's exit status comes back")
        XCTAssertTrue(fake.stderrLines.contains { $0.contains("stopping") }, "\(fake.stderrLines)")
    }

    func testAuditFindsSecretsInLogsAndForbiddenKeysInResponses() throws {
        let password = Fake.password()
        XCTAssertEqual(ResponseAudit.shared.leaks(in: [#"{"msg":"login","password":"\#(password)"}"#]).count, 1)
        XCTAssertTrue(ResponseAudit.shared.leaks(in: [#"{"msg":"login failed"}"#]).isEmpty)

        _ = ResponseAudit.shared.drainViolations()
        let leaky = HTTPResult(status: 200, headers: HTTPHeaders(fields: []), body: Data(),
                               json: ["user": ["id": "1", "passwordHash": "$2b$04$x"]] as [String: Any])
        ResponseAudit.shared.inspect(leaky, request: "GET /v1/users/me")
        XCTAssertEqual(ResponseAudit.shared.drainViolations().count, 1, "a nested passwordHash key is caught")
        let token = "tok-" + UUID().uuidString
        let withToken = HTTPResult(status: 201, headers: HTTPHeaders(fields: []), body: Data(), json: ["sessionToken": token])
        ResponseAudit.shared.inspect(withToken, request: "POST /v1/sessions")
        XCTAssertTrue(ResponseAudit.shared.secrets.contains(token), "issued tokens are remembered as secrets")
    }

    func testServeArgumentsAreTheContractFlags() throws {
        let fake = try TestServer(extraArguments: ["--lockout-threshold", "3"], binary: "/bin/true")
        XCTAssertEqual(Array(fake.serveArguments.prefix(7)), ["serve", "--listen", "127.0.0.1:0", "--data-dir", fake.dataDir.path, "--bcrypt-cost", "4"])
        XCTAssertEqual(Array(fake.serveArguments.suffix(2)), ["--lockout-threshold", "3"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: fake.dataDir.path), "a fresh data directory exists")
    }
}
