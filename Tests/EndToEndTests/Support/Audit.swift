import Foundation

/// Watches every response the suite receives, for things that must never happen whatever the test:
/// a JSON key naming a password or a hash, at any depth. It also remembers the secrets the suite
/// used (passwords sent, session tokens received) so tests can check the server's logs for them.
///
/// Violations are collected here, from any thread, and turned into test failures by
/// `ServerTestCase.tearDown` of the test that was running.
final class ResponseAudit: @unchecked Sendable {  // @unchecked: all state lives in `state`, a Locked box.
    static let shared = ResponseAudit()

    private struct State {
        var violations: [String] = []
        var secrets: Set<String> = []
        var exempt: Set<String> = []
    }
    private let state = Locked(State())

    /// Keys of request bodies whose values are passwords, or sign-in providers' tokens (which
    /// are as good as a password while they live): none may reach a log line.
    static let passwordKeys: Set<String> = ["password", "currentPassword", "newPassword", "identityToken", "idToken", "accessToken"]

    /// Records a failure when a JSON body has a key containing "password" or "hash".
    /// `/openapi.json` is exempt: its schemas legitimately describe the `password` request fields.
    func inspect(_ result: HTTPResult, request: String) {
        guard let json = result.json else { return }
        var found: [String] = []
        if !request.contains("/openapi.json") {
            walk(json, path: "$") { key, path in
                let lower = key.lowercased()
                // User(me)'s `hasPassword` says whether there is one, never what it is.
                if key != "hasPassword", lower.contains("password") || lower.contains("hash") { found.append(path) }
            }
        }
        var tokens: [String] = []
        walkValues(json) { key, value in
            if key == "sessionToken", let token = value as? String, !token.isEmpty { tokens.append(token) }
        }
        state.withLock { state in
            for path in found {
                state.violations.append("\(request) answered a JSON key \(path) (a password or hash must never leave the server)")
            }
            state.secrets.formUnion(tokens)
        }
    }

    /// Remembers the passwords in a request body (values of `passwordKeys`, at any depth).
    func rememberRequestSecrets(_ json: Any) {
        var passwords: [String] = []
        walkValues(json) { key, value in
            if ResponseAudit.passwordKeys.contains(key), let password = value as? String { passwords.append(password) }
        }
        for password in passwords { rememberSecret(password) }
    }

    /// Remembers a secret to look for in logs. Short or deliberately hostile strings are left out:
    /// they can appear in a log for innocent reasons (as a login name, say).
    func rememberSecret(_ secret: String) {
        guard secret.unicodeScalars.count >= 10 else { return }
        state.withLock { state in
            if !state.exempt.contains(secret) { state.secrets.insert(secret) }
        }
    }

    /// Strings that tests send on purpose in several roles (name and password): never treated as secrets.
    func exemptFromSecrets(_ strings: [String]) {
        state.withLock { state in
            state.exempt.formUnion(strings)
            state.secrets.subtract(strings)
        }
    }

    var secrets: Set<String> { state.withLock { $0.secrets } }

    /// Returns and forgets the violations recorded so far.
    func drainViolations() -> [String] {
        state.withLock { state in
            defer { state.violations.removeAll() }
            return state.violations
        }
    }

    /// Log lines that contain a remembered secret, with the secret masked in the report.
    func leaks(in lines: [String]) -> [String] {
        let secrets = self.secrets
        var leaks: [String] = []
        for line in lines {
            for secret in secrets where line.contains(secret) {
                let masked = line.replacingOccurrences(of: secret, with: "<SECRET \(secret.prefix(3))…>")
                leaks.append(String(masked.prefix(400)))
            }
        }
        return leaks
    }

    private func walk(_ json: Any, path: String, _ visit: (String, String) -> Void) {
        if let object = json as? [String: Any] {
            for (key, value) in object {
                visit(key, "\(path).\(key)")
                walk(value, path: "\(path).\(key)", visit)
            }
        } else if let array = json as? [Any] {
            for (index, value) in array.enumerated() { walk(value, path: "\(path)[\(index)]", visit) }
        }
    }

    private func walkValues(_ json: Any, _ visit: (String, Any) -> Void) {
        if let object = json as? [String: Any] {
            for (key, value) in object {
                visit(key, value)
                walkValues(value, visit)
            }
        } else if let array = json as? [Any] {
            for value in array { walkValues(value, visit) }
        }
    }
}
