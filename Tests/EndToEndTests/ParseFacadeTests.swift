import Foundation
import Storage
import XCTest

/// The Parse REST facade through the real binary, with raw HTTP as the Parse SDKs send it
/// (PARSE-REST.md §2): `serve --parse-app-id` on the small Parse export, imported with
/// `pacenote import-parse`, one of whose videos is hidden. Expectations are read from the
/// database directly, not from the facade.
final class ParseFacadeTests: ServerTestCase {
    static let appID = "vidwrc-app"
    static let monteCarlo = "tOamv3It6z"
    /// The most liked video of Monte-Carlo's day 1, by carlos_neuville: hidden before the server starts.
    static let hiddenVideo = "iJlNpuC4uK"
    static let hiddenOwner = "carlos_neuville"

    override class var serverArguments: [String] { ["--parse-app-id", appID, "--bcrypt-cost", "4"] }

    override class func prepareServer(_ server: TestServer) throws {
        try ImportTests.importFixture(into: server)
        try server.withDatabase { db in try db.write("UPDATE videos SET hidden = TRUE WHERE id = \(hiddenVideo)") }
    }

    // MARK: Helpers

    /// A request with the application id (unless `appID` is nil) and the session token.
    func parse(_ method: String, _ path: String, json: Any? = nil, token: String? = nil, appID: String? = ParseFacadeTests.appID,
               headers: [String: String] = [:]) throws -> HTTPResult {
        var fields = headers
        if let appID { fields["X-Parse-Application-Id"] = appID }
        if let token { fields["X-Parse-Session-Token"] = token }
        return try client.request(method, path, headers: fields, json: json)
    }

    /// A query string from Parse parameters, each JSON-encoded where it is not a string.
    func query(_ parameters: [String: Any]) throws -> String {
        var components = URLComponents()
        components.queryItems = try parameters.sorted { $0.key < $1.key }.map { key, value in
            if let text = value as? String { return URLQueryItem(name: key, value: text) }
            return URLQueryItem(name: key, value: String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self))
        }
        // '+' is a space to the server: encode it.
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }

    func results(_ response: HTTPResult, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        XCTAssertEqual(response.status, 200, "\(response)", file: file, line: line)
        return response.object?["results"] as? [[String: Any]] ?? []
    }

    func assertParseError(_ response: HTTPResult, status: Int, code: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, status, "\(response)", file: file, line: line)
        XCTAssertEqual(response.object?["code"] as? Int, code, "\(response)", file: file, line: line)
        XCTAssertNotNil(response.object?["error"] as? String, "\(response)", file: file, line: line)
    }

    func pointer(_ className: String, _ id: String) -> [String: Any] { ["__type": "Pointer", "className": className, "objectId": id] }

    func logIn(_ username: String, password: String = ImportTests.fixturePassword) throws -> (token: String, user: [String: Any]) {
        let response = try parse("GET", "/parse/login?" + (try query(["username": username, "password": password])))
        XCTAssertEqual(response.status, 200, "\(response)")
        let token = try XCTUnwrap(response.object?["sessionToken"] as? String, "\(response)")
        return (token, response.object ?? [:])
    }

    /// The session of a signed-in reader, as the app has once its user logged in: this server
    /// has no `--public-read`, so reads need one (`ParseFacadeReadAccessTests`).
    func reader() throws -> String { try logIn("stephane_kubica").token }

    func strings(_ sql: String) throws -> [String] {
        try server.withDatabase { db in try db.strings(.init(unsafeSQL: sql)) }
    }

    // MARK: The pipeline

    func testApplicationIdMissingOrWrongIs403OnBothPrefixes() throws {
        for prefix in ["/parse", "/1"] {
            for appID in [nil, "other-app"] as [String?] {
                let response = try parse("GET", prefix + "/classes/Rallye", appID: appID)
                XCTAssertEqual(response.status, 403, "\(response)")
                XCTAssertEqual(response.object?["error"] as? String, "unauthorized")
                XCTAssertNil(response.object?["code"])
            }
        }
        // An unknown path under a prefix is Parse's error too, after the same check.
        XCTAssertEqual(try parse("GET", "/parse/nothing/here", appID: nil).status, 403)
        assertParseError(try parse("GET", "/1/nothing/here"), status: 404, code: 119)
    }

    /// The JavaScript SDK's form: everything in a text/plain POST body.
    func testJavaScriptBodyKeys() throws {
        let body: [String: Any] = ["_method": "GET", "_ApplicationId": Self.appID, "_ClientVersion": "js1.8.3",
                                   "_InstallationId": "d3adb33f", "_SessionToken": try reader(), "order": "iniDate", "limit": 1]
        let response = try client.request("POST", "/parse/classes/Rallye", headers: ["Content-Type": "text/plain"],
                                          body: try JSONSerialization.data(withJSONObject: body))
        XCTAssertEqual(results(response).count, 1)
    }

    // MARK: Sessions

    func testSignUpMeLogoutAndTheTokenOnBothAPIs() throws {
        let signUp = try parse("POST", "/parse/users", json: ["username": "parse_newcomer", "password": "a long password", "email": "newcomer@example.com"])
        XCTAssertEqual(signUp.status, 201, "\(signUp)")
        let token = try XCTUnwrap(signUp.object?["sessionToken"] as? String)
        XCTAssertTrue(token.hasPrefix("r:"), "the iOS SDK calls /logout only for r: tokens")
        XCTAssertNotNil(signUp.object?["objectId"] as? String)
        XCTAssertNotNil(signUp.object?["createdAt"] as? String)

        let me = try parse("GET", "/parse/users/me", token: token)
        XCTAssertEqual(me.status, 200, "\(me)")
        XCTAssertEqual(me.object?["username"] as? String, "parse_newcomer")
        XCTAssertEqual(me.object?["email"] as? String, "newcomer@example.com")
        XCTAssertEqual(me.object?["sessionToken"] as? String, token)

        // The facade's token without its prefix is a /v1 Bearer token.
        let v1 = try client.request("GET", "/v1/users/me", token: String(token.dropFirst(2)))
        XCTAssertEqual(v1.status, 200, "\(v1)")
        XCTAssertEqual(v1.object?["id"] as? String, signUp.object?["objectId"] as? String)

        // Taken names are Parse's 202.
        assertParseError(try parse("POST", "/parse/users", json: ["username": "parse_newcomer", "password": "another one", "email": "other@example.com"]),
                         status: 400, code: 202)

        XCTAssertEqual(try parse("POST", "/1/logout", token: token).status, 200)
        assertParseError(try parse("GET", "/parse/users/me", token: token), status: 400, code: 209)
        XCTAssertEqual(try client.request("GET", "/v1/users/me", token: String(token.dropFirst(2))).status, 401)
    }

    func testAV1SessionWorksOnTheFacade() throws {
        let login = try client.request("POST", "/v1/sessions", json: ["login": "stephane_kubica", "password": ImportTests.fixturePassword])
        let v1Token = try XCTUnwrap(login.object?["sessionToken"] as? String, "\(login)")
        let me = try parse("GET", "/1/users/me", token: "r:" + v1Token)
        XCTAssertEqual(me.status, 200, "\(me)")
        XCTAssertEqual(me.object?["username"] as? String, "stephane_kubica")
        // Without the prefix it is a legacy Parse.com token, which parse-server refuses too.
        assertParseError(try parse("GET", "/parse/users/me", token: v1Token), status: 400, code: 209)
    }

    /// An imported user's bcrypt hash from Parse, by GET with the query and by the iOS SDK's tunnelled POST.
    func testImportedUsersLogInWithTheirOldPassword() throws {
        let byGet = try logIn("tommiwaldegard")
        XCTAssertEqual(byGet.user["objectId"] as? String, "ZR3qa7yEee")
        XCTAssertEqual(byGet.user["email"] as? String, "tommiwaldegard@example.com")
        XCTAssertEqual(byGet.user["emailVerified"] as? Bool, true)

        let byPost = try parse("POST", "/parse/login", json: ["username": "tommiwaldegard", "password": ImportTests.fixturePassword, "_method": "GET"],
                               headers: ["X-Parse-Revocable-Session": "1"])
        XCTAssertEqual(byPost.status, 200, "\(byPost)")
        XCTAssertNotEqual(byPost.object?["sessionToken"] as? String, byGet.token)

        let bad = try parse("POST", "/parse/login", json: ["username": "tommiwaldegard", "password": "not it"])
        assertParseError(bad, status: 404, code: 101)
        XCTAssertEqual(bad.object?["error"] as? String, "Invalid username/password.")
        assertParseError(try parse("GET", "/parse/login?username=tommiwaldegard"), status: 400, code: 201)
    }

    func testPasswordResetAnswersEmptyWhateverTheAddress() throws {
        for email in ["tommiwaldegard@example.com", "nobody@example.com"] {
            let response = try parse("POST", "/parse/requestPasswordReset", json: ["email": email])
            XCTAssertEqual(response.status, 200, "\(response)")
            XCTAssertEqual(response.object?.count, 0)
        }
        assertParseError(try parse("POST", "/parse/requestPasswordReset", json: [:]), status: 400, code: 204)
    }

    // MARK: The original app's queries

    func testRalliesByIniDate() throws {
        let expected = try strings("SELECT id FROM rallies ORDER BY start_date, id")
        let token = try reader()
        let rallies = results(try parse("GET", "/parse/classes/Rallye?order=iniDate", token: token))
        XCTAssertEqual(rallies.compactMap { $0["objectId"] as? String }, expected)
        let first = try XCTUnwrap(rallies.first { $0["objectId"] as? String == Self.monteCarlo })
        XCTAssertEqual(first["name"] as? String, "Rallye Automobile Monte-Carlo")
        XCTAssertEqual((first["iniDate"] as? [String: Any])?["iso"] as? String, "2014-01-16T00:00:00.000Z")
        XCTAssertEqual((first["iniDate"] as? [String: Any])?["__type"] as? String, "Date")
        XCTAssertEqual(first["nDays"] as? Int, 4)

        // A date range on iniDate, as a Date object.
        let after = results(try parse("GET", "/parse/classes/Rallye?" + (try query([
            "where": ["iniDate": ["$gt": ["__type": "Date", "iso": "2014-01-16T00:00:00.000Z"]]], "order": "-iniDate"])), token: token))
        XCTAssertEqual(after.compactMap { $0["objectId"] as? String }, Array(expected.dropFirst().reversed()))

        let one = try parse("GET", "/parse/classes/Rallye/" + Self.monteCarlo, token: token)
        XCTAssertEqual(one.object?["country"] as? String, "Monaco", "\(one)")
    }

    /// The iOS SDK's tunnelled find: POST with `_method`, `where` as an object, `limit` a string, on both prefixes.
    func testADaysVideosByLikesAndByRecencyWithTheirOwners() throws {
        let day = "rally_id = '\(Self.monteCarlo)' AND day = 1 AND hidden = FALSE"
        let byLikes = try strings("SELECT id FROM videos WHERE \(day) ORDER BY likes_count DESC, created_at DESC, id DESC LIMIT 5")
        let byRecency = try strings("SELECT id FROM videos WHERE \(day) ORDER BY created_at DESC, id DESC LIMIT 5")
        XCTAssertFalse(byLikes.isEmpty)
        let whereDay: [String: Any] = ["rallyId": pointer("Rallye", Self.monteCarlo), "nDay": 1]
        let token = try reader()
        for (prefix, order, expected) in [("/parse", "-nLikes", byLikes), ("/1", "-createdAt", byRecency)] {
            let response = try parse("POST", prefix + "/classes/Video",
                                     json: ["_method": "GET", "where": whereDay, "order": order, "limit": "5", "include": "owner"], token: token)
            let videos = results(response)
            XCTAssertEqual(videos.compactMap { $0["objectId"] as? String }, expected, order)
            let owner = try XCTUnwrap(videos.first?["owner"] as? [String: Any])
            XCTAssertEqual(owner["__type"] as? String, "Object")
            XCTAssertEqual(owner["className"] as? String, "_User")
            XCTAssertNotNil(owner["username"] as? String)
            XCTAssertNil(owner["email"], "another user's email is never shown")
            XCTAssertEqual((videos.first?["rallyId"] as? [String: Any])?["__type"] as? String, "Pointer")
        }
        // `where` as a JSON string in the query string, as the REST docs show it.
        let plain = try parse("GET", "/parse/classes/Video?" + (try query(["where": String(decoding: try JSONSerialization.data(withJSONObject: whereDay), as: UTF8.self),
                                                                             "order": "-nLikes", "limit": 5])), token: token)
        XCTAssertEqual(results(plain).compactMap { $0["objectId"] as? String }, byLikes)
    }

    func testAUsersVideosAndTheirCount() throws {
        let ownerID = try XCTUnwrap(try strings("SELECT owner_id FROM videos WHERE hidden = FALSE GROUP BY owner_id ORDER BY COUNT(*) DESC, owner_id LIMIT 1").first)
        let expected = try strings("SELECT id FROM videos WHERE owner_id = '\(ownerID)' AND hidden = FALSE ORDER BY created_at DESC, id DESC")
        let whereOwner: [String: Any] = ["owner": pointer("_User", ownerID)]
        let token = try reader()
        let videos = results(try parse("POST", "/parse/classes/Video", json: ["_method": "GET", "where": whereOwner, "order": "-createdAt"], token: token))
        XCTAssertEqual(videos.compactMap { $0["objectId"] as? String }, expected)

        let count = try parse("POST", "/parse/classes/Video", json: ["_method": "GET", "where": whereOwner, "count": "1", "limit": "0"], token: token)
        XCTAssertEqual(results(count).count, 0)
        XCTAssertEqual(count.object?["count"] as? Int, expected.count)
        let counted = try parse("GET", "/parse/classes/Video?" + (try query(["where": whereOwner, "count": 1, "limit": 2, "order": "-createdAt"])), token: token)
        XCTAssertEqual(results(counted).count, min(2, expected.count))
        XCTAssertEqual(counted.object?["count"] as? Int, expected.count)
    }

    func testUsersAreParseObjectsWithPictureFiles() throws {
        let token = try reader()
        let user = try parse("GET", "/parse/users/ZR3qa7yEee", token: token)
        XCTAssertEqual(user.status, 200, "\(user)")
        XCTAssertEqual(user.object?["username"] as? String, "tommiwaldegard")
        XCTAssertNil(user.object?["email"])
        XCTAssertEqual(try parse("GET", "/1/classes/_User/ZR3qa7yEee", token: token).object?["displayName"] as? String, user.object?["displayName"] as? String)
        assertParseError(try parse("GET", "/parse/users/NoSuchUser", token: token), status: 404, code: 101)
    }

    // MARK: Refusals and visibility

    func testUnsupportedOperatorsFieldsAndOrdersAreRefused() throws {
        let token = try reader()
        let regex = try parse("GET", "/parse/classes/Video?" + (try query(["where": ["title": ["$regex": "^Ogier"]]])), token: token)
        assertParseError(regex, status: 400, code: 102)
        assertParseError(try parse("GET", "/parse/classes/Video?" + (try query(["where": ["secret": 1]])), token: token), status: 400, code: 105)
        assertParseError(try parse("GET", "/parse/classes/Video?" + (try query(["where": ["$or": [["nDay": 1]]]])), token: token), status: 400, code: 102)
        // No index serves a scan of every video by date: refused, naming what is supported.
        let scan = try parse("GET", "/parse/classes/Video?order=-createdAt", token: token)
        assertParseError(scan, status: 400, code: 102)
        XCTAssertTrue((scan.object?["error"] as? String ?? "").contains("Supported"), "\(scan)")
        assertParseError(try parse("GET", "/parse/classes/Rallye?limit=5000", token: token), status: 400, code: 102)
        assertParseError(try parse("GET", "/parse/classes/Rallye?trace=1", token: token), status: 400, code: 102)
        // Activity is served, by its indexes only: every activity is a scan.
        assertParseError(try parse("GET", "/parse/classes/Activity", token: token), status: 400, code: 102)
        assertParseError(try parse("GET", "/parse/classes/_Session", token: token), status: 400, code: 119)
        // A write needs a session.
        assertParseError(try parse("POST", "/parse/classes/Video", json: ["title": "a write"]), status: 400, code: 209)
        let malformed = try client.request("POST", "/parse/classes/Rallye", headers: ["X-Parse-Application-Id": Self.appID], body: Data("{not json".utf8))
        assertParseError(malformed, status: 400, code: 107)
    }

    func testAHiddenVideoIsNotFoundExceptByItsOwner() throws {
        let stranger = try logIn("tommiwaldegard")
        assertParseError(try parse("GET", "/parse/classes/Video/" + Self.hiddenVideo, token: stranger.token), status: 404, code: 101)
        let whereDay: [String: Any] = ["rallyId": pointer("Rallye", Self.monteCarlo), "nDay": 1]
        let ids = results(try parse("POST", "/parse/classes/Video", json: ["_method": "GET", "where": whereDay, "order": "-nLikes"], token: stranger.token))
            .compactMap { $0["objectId"] as? String }
        XCTAssertFalse(ids.contains(Self.hiddenVideo))

        let owner = try logIn(Self.hiddenOwner)
        let own = try parse("GET", "/parse/classes/Video/" + Self.hiddenVideo + "?include=owner", token: owner.token)
        XCTAssertEqual(own.status, 200, "\(own)")
        XCTAssertEqual((own.object?["owner"] as? [String: Any])?["username"] as? String, Self.hiddenOwner)
        // A bad token is 209 on reads too, never an anonymous answer.
        assertParseError(try parse("GET", "/parse/classes/Video/" + Self.hiddenVideo, token: "r:nonsense"), status: 400, code: 209)
    }
}
