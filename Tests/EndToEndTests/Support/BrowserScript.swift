import Foundation
import TestSupport
import XCTest

/// Runs a Selenium script of Tests/Browser in the Python of scripts/python-env.
enum BrowserScript {
    /// The Python of scripts/python-env (or PACENOTE_TEST_PYTHON); nil, with a failure, when there is none.
    static func python(file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let python = ProcessInfo.processInfo.environment["PACENOTE_TEST_PYTHON"]
            ?? ConsoleBrowserTests.packageRoot.appendingPathComponent(".build/venv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("no Python at \(python): run scripts/python-env (scripts/test does)", file: file, line: line)
            return nil
        }
        return python
    }

    /// Runs Tests/Browser/`script` with `environment` (up to 240 s); its status and its output.
    static func run(_ script: String, python: String, environment: [String: String]) throws -> (status: Int32, log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [ConsoleBrowserTests.packageRoot.appendingPathComponent("Tests/Browser/\(script)").path]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let collected = Locked(Data())
        let reader = Thread { collected.withLock { $0 = output.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        _ = waitUntil(timeout: 240, interval: 0.1) { !process.isRunning }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        _ = waitUntil(timeout: 5) { reader.isFinished }
        return (process.terminationStatus, String(decoding: collected.withLock { $0 }, as: UTF8.self))
    }
}
