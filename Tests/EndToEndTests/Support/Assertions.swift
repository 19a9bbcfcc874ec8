import Foundation
import XCTest

/// The API.md error envelope: a JSON body `{"error": {"code", "message", "field"?}}`, with
/// `Content-Type: application/json` and an `X-Request-Id` header, on a 4xx/5xx status.
func assertEnvelope(_ result: HTTPResult, _ context: String = "", file: StaticString = #filePath, line: UInt = #line) {
    let where_ = context.isEmpty ? "" : "\(context): "
    XCTAssert((400...599).contains(result.status), "\(where_)an error answers 4xx/5xx, got \(result)", file: file, line: line)
    let contentType = result.headers["content-type"]?.lowercased() ?? ""
    XCTAssert(contentType.hasPrefix("application/json"), "\(where_)error Content-Type is application/json, got \(contentType.debugDescription) in \(result)", file: file, line: line)
    guard let object = result.object, let error = object["error"] as? [String: Any] else {
        XCTFail("\(where_)error body is {\"error\":{...}}, got \(result)", file: file, line: line)
        return
    }
    let code = error["code"] as? String ?? ""
    XCTAssertNotNil(code.range(of: "^[a-z][a-z0-9_]*$", options: .regularExpression), "\(where_)error.code is snake_case, got \(result)", file: file, line: line)
    XCTAssertFalse((error["message"] as? String ?? "").trimmingCharacters(in: .whitespaces).isEmpty, "\(where_)error.message is a sentence, got \(result)", file: file, line: line)
    if let field = error["field"] { XCTAssert(field is String, "\(where_)error.field is a string when present, got \(result)", file: file, line: line) }
    XCTAssertFalse((result.headers["x-request-id"] ?? "").isEmpty, "\(where_)an error carries an X-Request-Id header, got headers:\n\(result.headers)", file: file, line: line)
}

/// Status, envelope and code (and `field` when given: `.some(nil)` means "no field").
func assertError(
    _ result: HTTPResult, _ status: Int, _ code: String, field: String?? = .none, _ context: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    let where_ = context.isEmpty ? "" : "\(context): "
    XCTAssertEqual(result.status, status, "\(where_)status; got \(result)", file: file, line: line)
    XCTAssertEqual(result.errorCode, code, "\(where_)error code; got \(result)", file: file, line: line)
    if case .some(let expected) = field {
        XCTAssertEqual(result.errorField, expected, "\(where_)error field; got \(result)", file: file, line: line)
    }
    assertEnvelope(result, context, file: file, line: line)
}

/// A success with the given status; for bodies, a JSON object with `Content-Type: application/json`.
@discardableResult
func assertSuccess(
    _ result: HTTPResult, _ status: Int, _ context: String = "", file: StaticString = #filePath, line: UInt = #line
) -> [String: Any] {
    let where_ = context.isEmpty ? "" : "\(context): "
    XCTAssertEqual(result.status, status, "\(where_)status; got \(result)", file: file, line: line)
    if status == 204 {
        XCTAssertTrue(result.body.isEmpty, "\(where_)204 has no body; got \(result)", file: file, line: line)
        return [:]
    }
    if result.status == status {
        let contentType = result.headers["content-type"]?.lowercased() ?? ""
        XCTAssert(contentType.hasPrefix("application/json"), "\(where_)Content-Type is application/json, got \(contentType.debugDescription)", file: file, line: line)
        XCTAssertNotNil(result.object, "\(where_)body is a JSON object; got \(result)", file: file, line: line)
    }
    return result.object ?? [:]
}

/// `2014-04-05T10:15:30.123Z`, and within `tolerance` seconds of now when `near` is set.
func assertTimestamp(_ value: Any?, near: Date? = nil, tolerance: TimeInterval = 300, _ context: String = "", file: StaticString = #filePath, line: UInt = #line) {
    guard let text = value as? String,
          text.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil else {
        XCTFail("\(context) timestamp is ISO 8601 UTC with milliseconds (2014-04-05T10:15:30.123Z), got \(String(describing: value))", file: file, line: line)
        return
    }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    guard let date = formatter.date(from: text) else {
        XCTFail("\(context) timestamp \(text) is not a valid date", file: file, line: line)
        return
    }
    if let near {
        XCTAssertLessThan(abs(date.timeIntervalSince(near)), tolerance, "\(context) timestamp \(text) is close to now", file: file, line: line)
    }
}

/// The public User object of API.md: every public field, and none of the owner-only ones.
func assertPublicUser(_ user: [String: Any]?, username: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
    guard let user else { return XCTFail("expected a User object", file: file, line: line) }
    XCTAssertFalse((user["id"] as? String ?? "").isEmpty, "User.id is a non-empty string: \(user)", file: file, line: line)
    if let username { XCTAssertEqual(user["username"] as? String, username, "User.username keeps the case it was typed in", file: file, line: line) }
    XCTAssertNotNil(user["displayName"] as? String, "User.displayName is a string: \(user)", file: file, line: line)
    XCTAssertTrue(user.keys.contains("avatarUrl"), "User.avatarUrl is present (null when none): \(user)", file: file, line: line)
    XCTAssertTrue(["user", "moderator", "admin"].contains(user["role"] as? String ?? ""), "User.role: \(user)", file: file, line: line)
    for counter in ["followersCount", "followingCount", "videosCount"] {
        XCTAssertNotNil(jsonInt(user[counter]), "User.\(counter) is an integer: \(user)", file: file, line: line)
    }
    assertTimestamp(user["createdAt"], "User.createdAt", file: file, line: line)
}

/// The User(me) object: the public fields plus email, emailVerified and notificationSettings.
func assertOwnUser(_ user: [String: Any]?, username: String? = nil, email: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
    assertPublicUser(user, username: username, file: file, line: line)
    guard let user else { return }
    XCTAssertNotNil(user["email"] as? String, "User(me).email: \(user)", file: file, line: line)
    if let email { XCTAssertEqual((user["email"] as? String)?.lowercased(), email.lowercased(), "User(me).email", file: file, line: line) }
    XCTAssertTrue(isJSONBool(user["emailVerified"]), "User(me).emailVerified is a boolean: \(user)", file: file, line: line)
    let settings = user["notificationSettings"] as? [String: Any]
    XCTAssertNotNil(settings, "User(me).notificationSettings is an object: \(user)", file: file, line: line)
    for key in ["newVideos", "myActivity", "followingActivity"] {
        XCTAssertTrue(isJSONBool(settings?[key]), "notificationSettings.\(key) is a boolean: \(user)", file: file, line: line)
    }
}

func notificationSettings(_ user: [String: Any]?) -> [String: Bool] {
    let settings = user?["notificationSettings"] as? [String: Any] ?? [:]
    return settings.compactMapValues { isJSONBool($0) ? ($0 as? Bool) : nil }
}
