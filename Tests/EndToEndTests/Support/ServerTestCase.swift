import Foundation
import XCTest

/// Servers shared by the tests of one class: started by the first test that needs one, stopped
/// by the class's `tearDown`. A server that failed to start is remembered, so the other tests of
/// the class fail at once with the same message instead of waiting again.
enum SharedServers {
    private static let servers = Locked([String: Result<TestServer, any Error>]())

    /// `prepare` runs once, on the fresh data directory, before the server starts (to import data, say).
    static func server(
        for key: String, arguments: [String], prepare: ((TestServer) throws -> Void)? = nil
    ) throws -> TestServer {
        try servers.withLock { servers in
            if let existing = servers[key] { return try existing.get() }
            let result = Result { () throws -> TestServer in
                let server = try TestServer(extraArguments: arguments)
                try prepare?(server)
                try server.start()
                return server
            }
            servers[key] = result
            return try result.get()
        }
    }

    /// Stops and forgets the class's server; returns it (or nil) so a caller can inspect its logs.
    @discardableResult
    static func stop(_ key: String) -> TestServer? {
        let server = servers.withLock { servers in try? servers.removeValue(forKey: key)?.get() }
        server?.stop()
        return server
    }
}

/// Base of the end-to-end test classes: one `pacenote serve` per class (`serverArguments` adds
/// flags), a fresh keep-alive client per test, and after every test the suite-wide checks:
/// no response carried a password or hash key, and no server log line holds a secret the suite used.
class ServerTestCase: XCTestCase {
    /// Extra `serve` flags for this class's server.
    class var serverArguments: [String] { [] }

    private(set) var server: TestServer!
    private(set) var client: HTTPClient!

    class var serverKey: String { String(reflecting: self) }

    /// Runs once per class on the server's empty data directory, before `pacenote serve` starts
    /// (for example `pacenote import-parse`). An error here (XCTSkip included) is remembered and
    /// thrown by every test of the class. Does nothing by default.
    class func prepareServer(_ server: TestServer) throws {}

    override func setUpWithError() throws {
        try super.setUpWithError()
        _ = ResponseAudit.shared.drainViolations()  // Whatever an earlier class left behind is not ours.
        server = try SharedServers.server(for: Self.serverKey, arguments: Self.serverArguments,
                                          prepare: { try Self.prepareServer($0) })
        client = HTTPClient(port: server.port)
    }

    override func tearDown() {
        client?.close()
        client = nil
        for violation in ResponseAudit.shared.drainViolations() { XCTFail(violation) }
        if let server { assertNoSecretsLogged(server) }
        server = nil
        super.tearDown()
    }

    override class func tearDown() {
        SharedServers.stop(serverKey)
        super.tearDown()
    }

    /// A new client on this class's server (for tests that need several connections).
    func newClient() -> HTTPClient { HTTPClient(port: server.port) }

    func assertNoSecretsLogged(_ server: TestServer, file: StaticString = #filePath, line: UInt = #line) {
        let leaks = ResponseAudit.shared.leaks(in: server.output.allLines)
        for leak in leaks.prefix(5) {
            XCTFail("a server log line contains a password or session token: \(leak)", file: file, line: line)
        }
    }
}
