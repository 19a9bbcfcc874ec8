import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Why a stand-in could not be used; says what to run.
public struct StandInError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// The push stand-in (`Tests/Support/standins/push_standin.py`) running on loopback for one
/// test: HTTP/2 over TLS with a CA made for the run, keys for the client, and a log of every
/// request it received. Killed and its folder removed when released.
public final class StandIn {
    /// The package's folder: this file is Tests/TestSupport/PushStandIn.swift.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public let directory: URL
    public let port: Int
    private let process: Process

    public var baseURL: String { "https://127.0.0.1:\(port)" }
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }
    public var apnsKeyFile: String { directory.appendingPathComponent("apns.p8").path }
    public var apnsPublicKeyPEM: String { (try? String(contentsOf: directory.appendingPathComponent("apns_pub.pem"), encoding: .utf8)) ?? "" }

    /// Starts the stand-in with `script` (see the script's docstring) and waits, at most 30 s,
    /// until it listens.
    public init(script: [String: Any] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scriptFile = directory.appendingPathComponent("script.json")
        try JSONSerialization.data(withJSONObject: script).write(to: scriptFile)
        (process, port) = try StandInProcess.launch(
            script: "push_standin.py", arguments: ["--dir", directory.path, "--script", scriptFile.path], directory: directory, name: "push")
    }

    deinit {
        // SIGKILL, not terminate(): the child inherits the test thread's signal mask, in which
        // Dispatch's worker threads block SIGTERM, so a SIGTERM would never arrive.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every request received so far, in order.
    public func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("requests.jsonl"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// A service-account file for the stand-in's token endpoint and RSA key.
    public func writeServiceAccount(projectID: String = "pacenote-test") throws -> String {
        let key = try String(contentsOf: directory.appendingPathComponent("fcm_key.pem"), encoding: .utf8)
        let account: [String: Any] = [
            "type": "service_account", "project_id": projectID, "private_key_id": "kid-1",
            "private_key": key, "client_email": "pusher@\(projectID).iam.gserviceaccount.com",
            "token_uri": "\(baseURL)/token",
        ]
        let file = directory.appendingPathComponent("service-account.json")
        try JSONSerialization.data(withJSONObject: account).write(to: file)
        return file.path
    }
}

