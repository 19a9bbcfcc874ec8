import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The SMTP stand-in (`Tests/Support/standins/smtp_standin.py`, Python `aiosmtpd`) on loopback:
/// it records every message it accepts, decoded. `stop()` and `start()` again on the same port
/// make an outage. Killed and its folder removed when released.
public final class SMTPStandIn: @unchecked Sendable {  // @unchecked: used by one test thread at a time.
    public let directory: URL
    public private(set) var port = 0
    private let auth: String?
    private var process: Process?

    public var url: String { "smtp://127.0.0.1:\(port)" }

    /// Starts the stand-in; with `auth` ("user:password") it refuses mail until the client logs in.
    public init(auth: String? = nil) throws {
        self.auth = auth
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts it (again, on the port it had, when it ran before) and waits, at most 30 s, until it listens.
    public func start() throws {
        let (launched, listening) = try StandInProcess.launch(
            script: "smtp_standin.py", arguments: ["--dir", directory.path, "--port", String(port)] + (auth.map { ["--auth", $0] } ?? []),
            directory: directory, name: "SMTP")
        process = launched
        port = listening
    }

    /// Kills it: connections to its port are refused until `start()`.
    public func stop() {
        guard let process else { return }
        // SIGKILL: the child inherits the test thread's signal mask (see StandIn.deinit).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Every message accepted so far, in order (see the script's docstring for the fields).
    public func messages() -> [[String: Any]] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("messages.jsonl"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Waits until at least `count` messages arrived, at most `timeout` seconds; answers them all.
    public func waitForMessages(_ count: Int, timeout: Double = 20) -> [[String: Any]] {
        var seen: [[String: Any]] = []
        _ = waitUntil(timeout: timeout) {
            seen = messages()
            return seen.count >= count
        }
        return seen
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The decoded text/plain part of a recorded message.
    public var plainText: String { ((self["parts"] as? [String: Any])?["text/plain"] as? [String: Any])?["content"] as? String ?? "" }
    public var htmlText: String { ((self["parts"] as? [String: Any])?["text/html"] as? [String: Any])?["content"] as? String ?? "" }

    /// The first link in the plain text that starts with `prefix`.
    public func link(startingWith prefix: String) -> String? {
        plainText.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.hasPrefix(prefix) }
    }
}
