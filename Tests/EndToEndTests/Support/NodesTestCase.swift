import Foundation
import TestSupport
import XCTest

/// A test case of several `pacenote serve` processes on one PostgreSQL (`Nodes`): a fresh
/// schema per test, every server stopped afterwards, their logs printed when the test failed,
/// and each log checked for a password or session token.
class NodesTestCase: XCTestCase {
    var nodes: Nodes!

    override func setUpWithError() throws {
        try super.setUpWithError()
        nodes = try Nodes()
    }

    override func tearDown() {
        nodes?.stopAll()
        if (testRun?.failureCount ?? 0) > 0 {
            for (index, server) in (nodes?.servers ?? []).enumerated() { print("--- server \(index) ---\n\(server.output.summary(limit: 40))") }
        }
        for server in nodes?.servers ?? [] {
            for leak in ResponseAudit.shared.leaks(in: server.output.allLines).prefix(5) {
                XCTFail("a server log line contains a password or session token: \(leak)")
            }
        }
        _ = ResponseAudit.shared.drainViolations()
        nodes = nil
        super.tearDown()
    }
}

/// Runs `body` again and again on a thread of its own until `stop()`, as an app polling while
/// writers write; the first error ends it.
final class BackgroundLoop: Sendable {
    private let running = Locked(true)
    private let failure = Locked<String?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Void) {
        Thread { [running, failure, done] in
            while running.withLock({ $0 }) {
                do {
                    try body()
                } catch {
                    failure.withLock { $0 = "\(error)" }
                    break
                }
            }
            done.signal()
        }.start()
    }

    /// Stops it after the round under way; the first error, if there was one.
    func stop(timeout: TimeInterval = 60) -> String? {
        running.withLock { $0 = false }
        guard done.wait(timeout: .now() + timeout) == .success else { return "still running \(Int(timeout)) s after stop()" }
        return failure.withLock { $0 }
    }
}
