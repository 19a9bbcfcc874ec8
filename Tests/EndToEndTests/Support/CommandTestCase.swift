import XCTest

/// A test class whose every test gets a fresh, not yet started `TestServer` (its own empty data
/// directory), for commands run before or beside `serve`; responses are audited as everywhere.
class CommandTestCase: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        _ = ResponseAudit.shared.drainViolations()
        server = try TestServer()
    }

    override func tearDown() {
        for violation in ResponseAudit.shared.drainViolations() { XCTFail(violation) }
        server?.stop()
        server = nil
        super.tearDown()
    }
}
