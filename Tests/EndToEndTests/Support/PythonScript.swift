import Foundation
import TestSupport
import XCTest

/// Runs a Python script of the repository (the Selenium tests of Tests/Browser, the Parse client
/// and fuzz of Tests/Support) in the Python of scripts/python-env, as a client of a test server.
enum PythonScript {
    static var packageRoot: URL { StandIn.packageRoot }

    /// The Python of scripts/python-env (or PACENOTE_TEST_PYTHON); nil, with a failure, when there is none.
    static func python(file: StaticString = #filePath, line: UInt = #line) -> String? {
        let python = ProcessInfo.processInfo.environment["PACENOTE_TEST_PYTHON"]
            ?? packageRoot.appendingPathComponent(".build/venv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("no Python at \(python): run scripts/python-env (scripts/test does)", file: file, line: line)
            return nil
        }
        return python
    }

    /// Runs `script` (a path from the repository's root) with `environment`, for at most
    /// `timeout` (then it is terminated); its status and everything it printed.
    static func run(_ script: String, python: String, environment: [String: String], timeout: TimeInterval = 240) throws -> (status: Int32, log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [packageRoot.appendingPathComponent(script).path]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let collected = Locked(Data())
        let reader = Thread { collected.withLock { $0 = output.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        _ = waitUntil(timeout: timeout, interval: 0.1) { !process.isRunning }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        _ = waitUntil(timeout: 5) { reader.isFinished }
        return (process.terminationStatus, String(decoding: collected.withLock { $0 }, as: UTF8.self))
    }
}
