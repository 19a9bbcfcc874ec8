import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The sign-in providers' stand-in (`Tests/Support/standins/identity_standin.py`) on loopback:
/// a JWKS at `/jwks` and Facebook's Graph API (`/debug_token`, `/me`), over TLS with a CA made
/// for the run (or cleartext with `plain`). Its RSA keys (`k1`, `k2`, `k3` publishable, `rogue`
/// never published, `small` of 1024 bits) are files the test signs tokens with. What it answers
/// is set with `control(_:)`; every request is logged. Killed and its folder removed when released.
public final class IdentityStandIn: @unchecked Sendable {  // @unchecked: used by one test at a time.
    public let directory: URL
    public let port: Int
    public let plain: Bool
    private let process: Process

    public var baseURL: String { "\(plain ? "http" : "https")://127.0.0.1:\(port)" }
    public var jwksURL: String { baseURL + "/jwks" }
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }

    /// Starts the stand-in and waits, at most 30 s, until it listens.
    public init(plain: Bool = false) throws {
        self.plain = plain
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        (process, port) = try StandInProcess.launch(
            script: "identity_standin.py", arguments: ["--dir", directory.path] + (plain ? ["--plain"] : []),
            directory: directory, name: "identity")
    }

    deinit {
        // SIGKILL: the child inherits the test thread's signal mask (see StandIn.deinit).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The private key `name` (PKCS#8 PEM), to sign tokens with.
    public func privateKeyPEM(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("\(name).pem"), encoding: .utf8)
    }

    /// The public key `name` (SubjectPublicKeyInfo PEM).
    public func publicKeyPEM(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("\(name)_pub.pem"), encoding: .utf8)
    }

    /// Replaces what the stand-in answers (the script's docstring lists the fields); atomic, so
    /// a request sees the old settings or the new ones.
    public func control(_ settings: [String: Any]) throws {
        let temporary = directory.appendingPathComponent("control.json.tmp")
        try JSONSerialization.data(withJSONObject: settings).write(to: temporary)
        guard rename(temporary.path, directory.appendingPathComponent("control.json").path) == 0 else {
            throw StandInError(description: "could not replace control.json: errno \(errno)")
        }
    }

    /// Every request received so far, in order: `path` and `query` (name to value).
    public func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("requests.jsonl"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// How many requests for `path` arrived so far.
    public func count(_ path: String) -> Int {
        requests().filter { $0["path"] as? String == path }.count
    }
}
