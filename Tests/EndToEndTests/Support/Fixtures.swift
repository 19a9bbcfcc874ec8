import Foundation

/// Unique, valid inputs. Names are unique within a run (a counter sits at a fixed position), so tests
/// sharing a server never collide.
enum Fake {
    private static let counter = Locked(0)
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    /// A valid username of exactly `length` characters (3...30), lower case, starting with a letter.
    static func username(length: Int = 14) -> String {
        precondition((3...30).contains(length))
        let n = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let width = min(4, length - 1)
        var suffix = String(n, radix: 36)
        suffix = String(repeating: "0", count: max(0, width - suffix.count)) + suffix
        let padding = String((0..<(length - 1 - width)).map { _ in alphabet.randomElement()! })
        return String("abcdefghijklmnopqrstuvwxyz".randomElement()!) + padding + suffix.suffix(width)
    }

    static func email(for username: String) -> String { "\(username.lowercased())@example.com" }

    /// A random ASCII password of `length` bytes, remembered as a secret that no log may contain.
    static func password(length: Int = 20) -> String {
        let chars = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        let password = "Pw" + String((0..<max(0, length - 2)).map { _ in chars.randomElement()! })
        ResponseAudit.shared.rememberSecret(password)
        return String(password.prefix(length))
    }
}

/// A signed-up account and one of its sessions.
struct Account {
    let username: String
    let email: String
    let password: String
    var token: String
    let user: [String: Any]
    var id: String { user["id"] as? String ?? "" }
}

/// A request answered with a status the helper did not expect.
struct UnexpectedResponse: Error, CustomStringConvertible {
    let description: String
    init(request: String, result: HTTPResult) { description = "\(request) -> \(result)" }
}

extension HTTPClient {
    /// POST /v1/users; throws unless 201 with a user and a session token.
    @discardableResult
    func signup(
        username: String = Fake.username(), email: String? = nil, password: String = Fake.password(),
        displayName: String? = nil
    ) throws -> Account {
        let email = email ?? Fake.email(for: username)
        var body: [String: Any] = ["username": username, "email": email, "password": password]
        if let displayName { body["displayName"] = displayName }
        let result = try request("POST", "/v1/users", json: body)
        guard result.status == 201, let user = result.object?["user"] as? [String: Any],
              let token = result.object?["sessionToken"] as? String else {
            throw UnexpectedResponse(request: "POST /v1/users (signup \(username))", result: result)
        }
        return Account(username: username, email: email, password: password, token: token, user: user)
    }

    /// POST /v1/sessions; throws unless 201 with a user and a session token.
    func login(_ login: String, _ password: String) throws -> (token: String, user: [String: Any]) {
        let result = try request("POST", "/v1/sessions", json: ["login": login, "password": password])
        guard result.status == 201, let user = result.object?["user"] as? [String: Any],
              let token = result.object?["sessionToken"] as? String else {
            throw UnexpectedResponse(request: "POST /v1/sessions (login \(login))", result: result)
        }
        return (token, user)
    }

    /// GET /v1/users/me with `token`.
    func me(_ token: String) throws -> HTTPResult {
        try request("GET", "/v1/users/me", token: token)
    }
}

/// Strings that have broken servers before.
enum Hostile {
    static let quotes = #"She said "hi" and 'bye' \"escaped\" \\ back\slash"#
    static let sql = "'; DROP TABLE users; --"
    static let emoji = "🏁🚗💨 Rallye 🇫🇮 Sébastien Ogier 👨‍👩‍👧"
    static let decomposed = "Cafe\u{301} Ac\u{327}ores"  // combining marks must not be normalized away
    static let long = String(repeating: "Ωé🏎", count: 3334)  // 10,002 characters
    static let nul = "nul\u{0}byte"
    static let controls = "tab\tnew\nline\r\u{7F}\u{1B}[31m"
    static let all = [quotes, sql, emoji, decomposed, long, nul, controls]
}

/// A JSON value that is a boolean (not a number that happens to be 0 or 1).
func isJSONBool(_ value: Any?) -> Bool {
    guard let value else { return false }
    return String(describing: type(of: value)).contains("Bool")
}

/// A JSON value that is an integer (not a boolean).
func jsonInt(_ value: Any?) -> Int? {
    guard let value, !isJSONBool(value), let number = value as? NSNumber else { return nil }
    let int = number.intValue
    return number.doubleValue == Double(int) ? int : nil
}
