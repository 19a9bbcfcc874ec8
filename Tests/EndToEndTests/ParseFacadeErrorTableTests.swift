import Foundation
import XCTest

/// Parse's error answers case by case through the real binary, against PARSE-REST.md §1.6 (the
/// code and the status parse-server answers with) and §1.3/§1.4 (where each is emitted). Each
/// row is one request; every answer is `{code, error}` (the application-id refusal alone has no
/// code), and none is a 5xx.
final class ParseFacadeErrorTableTests: ServerTestCase {
    static let appID = "vidwrc-errors"

    override class var serverArguments: [String] { ["--parse-app-id", appID, "--bcrypt-cost", "4"] }

    struct Case {
        let name: String
        let method: String
        let path: String
        var json: Any?
        var body: Data?
        var session = false
        var appID = true
        let status: Int
        /// nil: parse-server's `{"error": "unauthorized"}` without a code.
        let code: Int?
    }

    func testEachCaseAnswersParseServersCodeAndStatus() throws {
        let user = try client.signup()
        let apns = String(repeating: "0f", count: 32)
        let pointerToNobody: [String: Any] = ["__type": "Pointer", "className": "_User", "objectId": "nobody"]
        let cases: [Case] = [
            Case(name: "no application id", method: "GET", path: "/parse/classes/Rallye", appID: false, status: 403, code: nil),
            Case(name: "unknown path", method: "GET", path: "/1/nothing/here", status: 404, code: 119),
            // Reads need a session on a server without --public-read (as /v1's 401).
            Case(name: "read without a session", method: "GET", path: "/parse/classes/Video/noSuchVideo", status: 400, code: 119),
            Case(name: "tunnelled read without a session", method: "POST", path: "/parse/classes/Rallye", json: ["_method": "GET"], status: 400, code: 119),
            Case(name: "unknown object", method: "GET", path: "/parse/classes/Video/noSuchVideo", session: true, status: 404, code: 101),
            Case(name: "bad login", method: "POST", path: "/parse/login", json: ["username": user.username, "password": "wrong", "_method": "GET"],
                 status: 404, code: 101),
            Case(name: "login without username", method: "GET", path: "/parse/login?password=x", status: 400, code: 200),
            Case(name: "login without password", method: "GET", path: "/parse/login?username=x", status: 400, code: 201),
            Case(name: "unknown query parameter", method: "GET", path: "/parse/classes/Rallye?trace=1", session: true, status: 400, code: 102),
            Case(name: "unsupported operator", method: "POST", path: "/parse/classes/Video",
                 json: ["_method": "GET", "where": ["title": ["$text": ["$search": "x"]]]], session: true, status: 400, code: 102),
            Case(name: "$or", method: "POST", path: "/parse/classes/Video",
                 json: ["_method": "GET", "where": ["$or": [["nDay": 1], ["nDay": 2]]]], session: true, status: 400, code: 102),
            Case(name: "query no index serves", method: "POST", path: "/parse/classes/Video",
                 json: ["_method": "GET", "where": ["nDay": 1], "order": "title"], session: true, status: 400, code: 102),
            Case(name: "improper $select", method: "POST", path: "/parse/classes/Video",
                 json: ["_method": "GET", "where": ["owner": ["$select": ["key": "toUser"]]]], session: true, status: 400, code: 102),
            Case(name: "regex other than a prefix", method: "POST", path: "/parse/classes/Video",
                 json: ["_method": "GET", "where": ["owner": pointerToNobody, "title": ["$regex": "a.*b"]]], session: true, status: 400, code: 102),
            Case(name: "skip over the cap", method: "GET", path: "/parse/classes/Rallye?skip=10001", session: true, status: 400, code: 102),
            Case(name: "invalid key name", method: "GET", path: "/parse/classes/Rallye?order=a.b", session: true, status: 400, code: 105),
            Case(name: "unknown field", method: "POST", path: "/parse/classes/Rallye", json: ["_method": "GET", "where": ["secret": 1]],
                 session: true, status: 400, code: 105),
            Case(name: "invalid class name", method: "GET", path: "/parse/classes/9lives", status: 400, code: 103),
            Case(name: "class not served", method: "GET", path: "/parse/classes/_Session", status: 400, code: 119),
            Case(name: "body not JSON", method: "POST", path: "/parse/classes/Video", body: Data("{nope".utf8), status: 400, code: 107),
            Case(name: "bad _method", method: "POST", path: "/parse/classes/Video", json: ["_method": "PATCH"], status: 400, code: 107),
            Case(name: "batch over 50", method: "POST", path: "/parse/batch",
                 json: ["requests": Array(repeating: ["method": "GET", "path": "/parse/classes/Rallye"], count: 51)], status: 400, code: 107),
            Case(name: "URL with a NUL", method: "GET", path: "/parse/classes/Video/%00", status: 400, code: 107),
            Case(name: "body over 64 KiB", method: "POST", path: "/parse/classes/Video", body: Data(repeating: 32, count: 70_000),
                 status: 413, code: 116),
            Case(name: "write without a session", method: "POST", path: "/parse/classes/Video", json: ["title": "x"], status: 400, code: 209),
            Case(name: "invalid session token", method: "GET", path: "/parse/users/me", session: false, status: 400, code: 209),
            Case(name: "schema mismatch", method: "POST", path: "/parse/classes/Video",
                 json: ["youtubeID": "dQw4w9WgXcQ", "title": "x", "rallyId": ["__type": "Pointer", "className": "Rallye", "objectId": "r"], "nDay": "one"],
                 session: true, status: 400, code: 111),
            Case(name: "unknown write field", method: "POST", path: "/parse/classes/Video", json: ["shotAt": 1], session: true, status: 400, code: 105),
            Case(name: "missing required field", method: "POST", path: "/parse/classes/Activity", json: ["type": 1], session: true, status: 400, code: 142),
            Case(name: "another user's pointer", method: "POST", path: "/parse/classes/Activity",
                 json: ["type": 4, "fromUser": pointerToNobody, "toUser": pointerToNobody], session: true, status: 400, code: 119),
            Case(name: "installation find", method: "GET", path: "/parse/classes/_Installation", session: true, status: 400, code: 119),
            Case(name: "installation without a session", method: "POST", path: "/parse/installations",
                 json: ["deviceType": "ios", "deviceToken": apns], status: 400, code: 206),
            Case(name: "installation without deviceType", method: "POST", path: "/parse/installations",
                 json: ["deviceToken": apns], session: true, status: 400, code: 135),
            Case(name: "non-hex APNs token", method: "POST", path: "/parse/installations",
                 json: ["deviceType": "ios", "deviceToken": "xyz-not-hex-xyz-not-hex"], session: true, status: 400, code: 142),
            Case(name: "bad channel name", method: "POST", path: "/parse/installations",
                 json: ["deviceType": "ios", "deviceToken": apns, "channels": ["$bad"]], session: true, status: 400, code: 112),
            Case(name: "another user's profile", method: "PUT", path: "/parse/users/someoneElse", json: ["displayName": "x"], session: true,
                 status: 404, code: 101),
            Case(name: "profile without a session", method: "PUT", path: "/parse/classes/_User/\(user.id)", json: ["displayName": "x"],
                 status: 400, code: 206),
            Case(name: "username taken", method: "POST", path: "/parse/users",
                 json: ["username": user.username, "password": "a long password", "email": "other-\(user.email)"], status: 400, code: 202),
            Case(name: "sign-up without email", method: "POST", path: "/parse/users", json: ["username": "no_mail_user", "password": "a long password"],
                 status: 400, code: 204),
            Case(name: "sign-up with authData", method: "POST", path: "/parse/users", json: ["authData": ["facebook": ["id": "1"]]],
                 status: 400, code: 252),
            Case(name: "reset without email", method: "POST", path: "/parse/requestPasswordReset", json: [:], status: 400, code: 204),
        ]
        for row in cases {
            var headers: [String: String] = [:]
            if row.appID { headers["X-Parse-Application-Id"] = Self.appID }
            headers["X-Parse-Session-Token"] = row.session ? "r:" + user.token : (row.name == "invalid session token" ? "r:nope" : nil)
            let response = try client.request(row.method, row.path, headers: headers, body: row.body, json: row.json)
            XCTAssertEqual(response.status, row.status, "\(row.name): \(response)")
            XCTAssertNotNil(response.object?["error"] as? String, "\(row.name): \(response)")
            XCTAssertEqual(response.object?["code"] as? Int, row.code, "\(row.name): \(response)")
        }
    }
}
