import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Why a `pacenote serve` process could not be used. Descriptions carry what the server printed,
/// so a failing test says why without anyone having to rerun it by hand.
enum TestServerError: Error, CustomStringConvertible {
    case binaryNotFound(searched: [String])
    case launchFailed(command: String, reason: String)
    case exitedBeforeListening(command: String, status: Int32, output: String)
    case timedOut(command: String, seconds: Double, output: String)
    case badListenAddress(String)

    var description: String {
        switch self {
        case .binaryNotFound(let searched):
            return "pacenote binary not found; looked at: \(searched.joined(separator: ", ")) "
                + "(build it with `swift build --build-tests`, or set PACENOTE_BIN)"
        case .launchFailed(let command, let reason):
            return "could not launch `\(command)`: \(reason)"
        case .exitedBeforeListening(let command, let status, let output):
            return "`\(command)` exited with status \(status) before logging a line with "
                + "\"msg\":\"listening\".\n\(output)"
        case .timedOut(let command, let seconds, let output):
            return "`\(command)` did not log a line with \"msg\":\"listening\" within \(seconds) s "
                + "(process killed).\n\(output)"
        case .badListenAddress(let line):
            return "the \"listening\" log line has no usable \"listen\" field (HOST:PORT): \(line)"
        }
    }
}

/// Lines a child process wrote, kept in memory for the whole life of the process.
final class OutputRecorder: @unchecked Sendable {  // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var stderr: [String] = []
    private var stdout: [String] = []
    private var listenLine: String?
    private var listen: String?
    private var openStreams = 0

    var stderrLines: [String] { condition.lock(); defer { condition.unlock() }; return stderr }
    var stdoutLines: [String] { condition.lock(); defer { condition.unlock() }; return stdout }
    var allLines: [String] { condition.lock(); defer { condition.unlock() }; return stderr + stdout }

    func streamOpened() { condition.lock(); openStreams += 1; condition.unlock() }

    /// Forgets the "listening" line, for a server started again (its lines are kept).
    func reset() { condition.lock(); listen = nil; listenLine = nil; condition.unlock() }

    func streamClosed() {
        condition.lock()
        openStreams -= 1
        condition.broadcast()
        condition.unlock()
    }

    func append(_ line: String, isStderr: Bool) {
        var listening: (line: String, address: String?)?
        if isStderr, line.contains("listening"),
           let data = line.data(using: .utf8),
           let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
           object["msg"] as? String == "listening" {
            listening = (line, object["listen"] as? String)
        }
        condition.lock()
        if isStderr { stderr.append(line) } else { stdout.append(line) }
        if let listening, listenLine == nil {
            listenLine = listening.line
            listen = listening.address ?? ""
        }
        condition.broadcast()
        condition.unlock()
    }

    enum WaitOutcome { case listening(address: String, line: String), streamsClosed, stillWaiting }

    /// Waits until the "listening" line arrives, every stream reached EOF, or `deadline` passes.
    func waitForListening(until deadline: Date) -> WaitOutcome {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let listen, let listenLine { return .listening(address: listen, line: listenLine) }
            if openStreams == 0 { return .streamsClosed }
            if !condition.wait(until: deadline) {
                if let listen, let listenLine { return .listening(address: listen, line: listenLine) }
                return .stillWaiting
            }
        }
    }

    /// Waits (briefly) until every stream reached EOF, so the output is complete.
    func waitForEOF(until deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while openStreams > 0, condition.wait(until: deadline) {}
    }

    /// The output, for failure messages: the last `limit` lines of each stream.
    func summary(limit: Int = 60) -> String {
        condition.lock()
        defer { condition.unlock() }
        let err = stderr.suffix(limit).joined(separator: "\n")
        let out = stdout.suffix(limit).joined(separator: "\n")
        return "--- stderr (\(stderr.count) lines) ---\n\(err.isEmpty ? "(nothing)" : err)\n"
            + "--- stdout (\(stdout.count) lines) ---\n\(out.isEmpty ? "(nothing)" : out)"
    }

    /// Reads `fd` until EOF on a thread of its own, one line at a time.
    func drain(_ handle: FileHandle, isStderr: Bool) {
        streamOpened()
        let fd = handle.fileDescriptor
        let thread = Thread { [self] in
            // `handle` stays alive (and `fd` open) because the owner keeps its Pipe until the process is gone.
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending.append(contentsOf: chunk[0..<n])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    self.append(line, isStderr: isStderr)
                }
            }
            if !pending.isEmpty { self.append(String(decoding: pending, as: UTF8.self), isStderr: isStderr) }
            self.streamClosed()
        }
        thread.start()
    }
}

/// One `pacenote serve` process on a free loopback port, with a fresh data directory of its own
/// and a fresh database: SQLite in that directory, or, when `TestDatabase` says PostgreSQL, a
/// schema of its own in the test cluster, passed as `--database` to `serve` and every command.
///
/// Use from one test thread at a time. `deinit` kills a process still running and removes the
/// data directory, so a failing test never leaves a server or files behind.
final class TestServer: @unchecked Sendable {  // @unchecked: `process` and the pipes are only touched by the owning test thread; `output` locks itself.
    /// The `pacenote` file beside the running test executable, else `$PACENOTE_BIN`; first
    /// `$PACENOTE_BENCH_BIN` when set (a benchmark measuring another build through the same
    /// tests: bench/picture-memory.sh).
    static func locateBinary() throws -> String {
        var searched: [String] = []
        if let bench = ProcessInfo.processInfo.environment["PACENOTE_BENCH_BIN"], !bench.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: bench) else { throw TestServerError.binaryNotFound(searched: [bench]) }
            return bench
        }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let candidate = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("pacenote").path
            searched.append(candidate)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        if let fromEnv = ProcessInfo.processInfo.environment["PACENOTE_BIN"], !fromEnv.isEmpty {
            searched.append(fromEnv)
            if FileManager.default.isExecutableFile(atPath: fromEnv) { return fromEnv }
        } else {
            searched.append("$PACENOTE_BIN (unset)")
        }
        throw TestServerError.binaryNotFound(searched: searched)
    }

    let binary: String
    let dataDir: URL
    let extraArguments: [String]
    /// `PACENOTE_*` (or other) variables for the server process, on top of ours.
    let environment: [String: String]
    /// Whether `serve` gets the harness's own `--listen`, `--data-dir` and `--bcrypt-cost`;
    /// off for tests that pass them another way (the environment).
    let defaultFlags: Bool
    let output = OutputRecorder()
    /// The server's PostgreSQL schema (nil on SQLite), dropped when the server is released.
    let postgres: TemporaryPostgres?
    /// The port the server reported in its "listening" line; 0 before `start()`.
    private(set) var port: Int = 0
    private var process: Process?
    /// The running server's process id (nil before `start()`), to read its memory in /proc.
    var pid: Int32? { process?.processIdentifier }

    /// The running server's peak resident memory (VmHWM of /proc/PID/status), in KiB.
    func peakResidentKiB() throws -> Int { try memoryStatus("VmHWM") }

    /// The running server's resident memory now (VmRSS), in KiB.
    func residentKiB() throws -> Int { try memoryStatus("VmRSS") }

    /// Starts the peak over from the resident memory now (`5` into /proc/PID/clear_refs), so
    /// `peakResidentKiB` then says the most the server held since.
    func resetPeakResident() throws {
        guard let pid else { throw TestServerMemoryError(description: "the server is not running") }
        guard let handle = FileHandle(forWritingAtPath: "/proc/\(pid)/clear_refs") else {
            throw TestServerMemoryError(description: "cannot open /proc/\(pid)/clear_refs")
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data("5".utf8))
    }

    private func memoryStatus(_ field: String) throws -> Int {
        guard let pid else { throw TestServerMemoryError(description: "the server is not running") }
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw TestServerMemoryError(description: "no \(field) line in /proc/\(pid)/status")
        }
        return kib
    }
    private var pipes: [Pipe] = []

    /// Prepares a server (nothing runs yet): finds the binary and creates an empty data directory.
    /// `sharing` puts the server on that PostgreSQL schema, whatever `TestDatabase` says: several
    /// servers on one database (`MultiNodeTests`).
    init(extraArguments: [String] = [], environment: [String: String] = [:], defaultFlags: Bool = true, binary: String? = nil,
         sharing shared: TemporaryPostgres? = nil) throws {
        self.binary = try binary ?? TestServer.locateBinary()
        self.extraArguments = extraArguments
        self.environment = environment
        self.defaultFlags = defaultFlags
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("pacenote-e2e-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        self.dataDir = dir
        postgres = try shared ?? (TestDatabase.isPostgres ? TemporaryPostgres() : nil)
    }

    /// The `--database` URL of this server's PostgreSQL schema; nil on SQLite.
    var databaseURL: String? { postgres?.url }

    /// `<dataDir>/pacenote.sqlite`, the SQLite database of `serve --data-dir` (on SQLite).
    var sqlitePath: String { dataDir.appendingPathComponent("pacenote.sqlite").path }

    /// `--database URL` on PostgreSQL, nothing on SQLite (the data directory's file).
    var databaseArguments: [String] { databaseURL.map { ["--database", $0] } ?? [] }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: dataDir)
    }

    var serveArguments: [String] {
        ["serve"] + (defaultFlags ? ["--listen", "127.0.0.1:0", "--data-dir", dataDir.path, "--bcrypt-cost", "4"] + databaseArguments + Self.limitsOff : [])
            + extraArguments
    }

    /// Every rate limit off: the tests sign up, log in and write far more from one loopback
    /// address than the defaults allow a client (50 sign-ups an hour). Tests of a limit pass its
    /// flag in `extraArguments`, which come later and win. The server's defaults stay on.
    static let limitsOff = ["--limit-signups", "off", "--limit-logins", "off", "--limit-mails", "off",
                            "--limit-mails-per-ip", "off", "--limit-writes", "off", "--limit-requests", "off"]

    var stderrLines: [String] { output.stderrLines }
    var isRunning: Bool { process?.isRunning ?? false }

    /// Launches `pacenote serve` and waits for its "listening" log line; throws with the output seen
    /// when the process exits first or `timeout` seconds pass (the process is then killed).
    func start(timeout: Double = 20) throws {
        precondition(process == nil, "TestServer.start() called twice")
        let command = ([binary] + serveArguments).joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = serveArguments
        process.environment = TestServer.childEnvironment().merging(environment) { $1 }
        let errPipe = Pipe()
        let outPipe = Pipe()
        process.standardError = errPipe
        process.standardOutput = outPipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw TestServerError.launchFailed(command: command, reason: "\(error)")
        }
        self.process = process
        self.pipes = [errPipe, outPipe]
        // Our copies of the write ends must go, or EOF never comes when the child exits.
        try? errPipe.fileHandleForWriting.close()
        try? outPipe.fileHandleForWriting.close()
        output.drain(errPipe.fileHandleForReading, isStderr: true)
        output.drain(outPipe.fileHandleForReading, isStderr: false)

        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // Short slices, so a child that exits without closing inherited pipes is still noticed.
            let slice = min(deadline, Date().addingTimeInterval(0.1))
            switch output.waitForListening(until: slice) {
            case .listening(let address, let line):
                guard let portText = address.split(separator: ":").last, let port = Int(portText), port > 0 else {
                    throw TestServerError.badListenAddress(line)
                }
                self.port = port
                return
            case .streamsClosed, .stillWaiting:
                if !process.isRunning {
                    output.waitForEOF(until: Date().addingTimeInterval(1))
                    throw TestServerError.exitedBeforeListening(
                        command: command, status: TestServer.status(of: process), output: output.summary())
                }
                if Date() >= deadline {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    output.waitForEOF(until: Date().addingTimeInterval(1))
                    throw TestServerError.timedOut(command: command, seconds: timeout, output: output.summary())
                }
            }
        }
    }

    /// Kills the process with SIGKILL, as a crash would, and waits for it; `start()` may then run
    /// the server again on the same data directory.
    func crash() {
        guard let process else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        self.process = nil
        port = 0
        output.reset()
    }

    /// Sends SIGTERM without waiting (`stop()` then waits for the exit).
    func terminate() {
        if let process, process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// Sends SIGTERM and waits for the process to exit. Returns its exit status, `128 + signal` when
    /// a signal ended it, or `-1` when it was still running after `timeout` seconds (it is then killed).
    @discardableResult
    func stop(timeout: Double = 15) -> Int32 {
        guard let process else { return -1 }
        guard process.isRunning else { return TestServer.status(of: process) }
        kill(process.processIdentifier, SIGTERM)
        _ = waitUntil(timeout: timeout, interval: 0.02) { !process.isRunning }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            output.waitForEOF(until: Date().addingTimeInterval(1))
            return -1
        }
        process.waitUntilExit()
        output.waitForEOF(until: Date().addingTimeInterval(2))
        return TestServer.status(of: process)
    }

    /// Runs `pacenote ARGS --data-dir DIR` (and `--database URL` on PostgreSQL) to completion
    /// (killed after `timeout` seconds).
    func runCLI(_ args: [String], timeout: Double = 60) -> (status: Int32, stdout: String, stderr: String) {
        TestServer.run(binary: binary, arguments: args + ["--data-dir", dataDir.path] + databaseArguments, timeout: timeout)
    }

    /// Runs a program to completion and collects what it printed; `environment` is added to ours.
    static func run(binary: String, arguments: [String], timeout: Double, environment: [String: String] = [:]) -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = childEnvironment().merging(environment) { $1 }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return (-1, "", "could not launch \(binary): \(error)")
        }
        try? outPipe.fileHandleForWriting.close()
        try? errPipe.fileHandleForWriting.close()
        let recorder = OutputRecorder()
        recorder.drain(outPipe.fileHandleForReading, isStderr: false)
        recorder.drain(errPipe.fileHandleForReading, isStderr: true)
        _ = waitUntil(timeout: timeout, interval: 0.01) { !process.isRunning }
        var timedOut = false
        if process.isRunning {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        recorder.waitForEOF(until: Date().addingTimeInterval(2))
        var stderr = recorder.stderrLines.joined(separator: "\n")
        if timedOut { stderr += "\n[e2e harness: killed after \(timeout) s]" }
        return (timedOut ? -1 : status(of: process), recorder.stdoutLines.joined(separator: "\n"), stderr)
    }

    /// The environment of our children: ours, without any `PACENOTE_*` variable, so a developer's
    /// shell (say `PACENOTE_DATABASE_URL`) cannot point a test server at a shared database.
    static func childEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PACENOTE_") }
    }

    private static func status(of process: Process) -> Int32 {
        process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }
}

struct TestServerMemoryError: Error, CustomStringConvertible {
    let description: String
}
