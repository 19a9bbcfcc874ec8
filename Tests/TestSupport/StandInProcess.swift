import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Starts a Python stand-in script (Tests/Support/standins) and waits, at most 30 s, for the
/// first line it prints, `{"port": N}`: what the push and SMTP stand-ins share.
enum StandInProcess {
    /// The running process and the port it listens on; its stderr goes to `directory/stderr.txt`.
    static func launch(script: String, arguments: [String], directory: URL, name: String) throws -> (Process, port: Int) {
        let python = ProcessInfo.processInfo.environment["PACENOTE_TEST_PYTHON"]
            ?? StandIn.packageRoot.appendingPathComponent(".build/venv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw StandInError(description: "no Python for the stand-ins at \(python): run scripts/python-env (scripts/test does)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [StandIn.packageRoot.appendingPathComponent("Tests/Support/standins/\(script)").path] + arguments
        let output = Pipe()
        let errors = directory.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()

        let firstLine = Mutex<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    firstLine.withLock { $0 = String(decoding: buffer[..<newline], as: UTF8.self) }
                    break
                }
            }
            ready.signal()
        }
        let waited = ready.wait(timeout: .now() + 30)
        guard waited == .success, let line = firstLine.withLock({ $0 }),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let port = object["port"] as? Int
        else {
            // SIGKILL: the child inherits the test thread's signal mask, which blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw StandInError(description: "the \(name) stand-in did not start within 30 s: \(stderr)")
        }
        return (process, port)
    }
}
