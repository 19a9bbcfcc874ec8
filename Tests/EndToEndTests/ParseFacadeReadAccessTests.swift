import Foundation
import XCTest

/// Who may read through the Parse facade (API.md "Parse-compatible REST", issue 43): the same
/// rule as `/v1`. Without `--public-read` every read needs a session, else 119 (400, as
/// parse-server answers a permission it refuses), however it arrives: a GET, the iOS SDK's
/// `_method` tunnel, a batch's sub-request; the launch calls before sign-in still work. With
/// `--public-read` the same reads are open. The checks are here, run by the two classes below
/// (one server each), so both servers answer the same requests.
class ParseReadAccessCase: ServerTestCase {
    static let appID = "vidwrc-reads"

    /// Whether this class's server was given `--public-read`.
    class var publicRead: Bool { false }

    /// A video with a comment, its owner followed, and every read route the facade serves on them.
    struct Scene {
        let owner: Account
        let reader: Account
        let rallyID: String
        let videoID: String
        /// (name, path with its query) of each read.
        let reads: [(String, String)]
        /// The same reads as the iOS SDK tunnels them: (name, path, body).
        let tunnelled: [(String, String, [String: Any])]
    }

    func parse(_ method: String, _ path: String, json: Any? = nil, as account: Account?) throws -> HTTPResult {
        var headers = ["X-Parse-Application-Id": Self.appID]
        if let account { headers["X-Parse-Session-Token"] = "r:" + account.token }
        return try client.request(method, path, headers: headers, json: json)
    }

    func pointer(_ className: String, _ id: String) -> [String: Any] { ["__type": "Pointer", "className": className, "objectId": id] }

    func whereQuery(_ constraints: [String: Any], _ extra: [String: String] = [:]) throws -> String {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "where", value: String(decoding: try JSONSerialization.data(withJSONObject: constraints), as: UTF8.self))]
            + extra.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }

    func makeScene() throws -> Scene {
        let owner = try client.signup()
        let reader = try client.signup()
        let (rally, video) = try rallyAndVideo(owner: owner)
        let rallyID = try XCTUnwrap(rally["id"] as? String)
        let videoID = try XCTUnwrap(video["id"] as? String)
        XCTAssertEqual(try client.request("PUT", "/v1/users/\(owner.id)/follow", token: reader.token).status, 200)
        XCTAssertEqual(try client.request("POST", "/v1/videos/\(videoID)/comments", json: ["content": "Flat out"], token: reader.token).status, 201)
        let ownerPointer = pointer("_User", owner.id)
        let day: [String: Any] = ["rallyId": pointer("Rallye", rallyID), "nDay": 1]
        let comments: [String: Any] = ["video": pointer("Video", videoID), "type": 2]
        let follows: [String: Any] = ["fromUser": pointer("_User", reader.id), "type": 4]
        return Scene(owner: owner, reader: reader, rallyID: rallyID, videoID: videoID, reads: [
            ("a video by id", "/parse/classes/Video/\(videoID)"),
            ("a user's videos", "/parse/classes/Video?" + (try whereQuery(["owner": ownerPointer], ["order": "-createdAt"]))),
            ("a day's videos", "/1/classes/Video?" + (try whereQuery(day, ["order": "-nLikes", "count": "1"]))),
            ("a user by id", "/parse/users/\(owner.id)"),
            ("a user by id under classes", "/parse/classes/_User/\(owner.id)"),
            ("users by username", "/parse/users?" + (try whereQuery(["username": owner.username]))),
            ("users under classes", "/1/classes/_User?" + (try whereQuery(["objectId": owner.id]))),
            ("a video's comments", "/parse/classes/Activity?" + (try whereQuery(comments, ["order": "createdAt"]))),
            ("a user's follows", "/parse/classes/Activity?" + (try whereQuery(follows))),
            ("the rallies", "/parse/classes/Rallye?order=iniDate"),
            ("a rally by id", "/parse/classes/Rallye/\(rallyID)"),
        ], tunnelled: [
            ("a tunnelled find of videos", "/parse/classes/Video", ["_method": "GET", "where": day, "order": "-createdAt", "limit": "5"]),
            ("a tunnelled get of a video", "/1/classes/Video/\(videoID)", ["_method": "GET"]),
            ("a tunnelled find of comments", "/parse/classes/Activity", ["_method": "GET", "where": comments]),
            ("a tunnelled find of users", "/parse/users", ["_method": "GET", "where": ["objectId": owner.id]]),
            ("a tunnelled find of rallies", "/parse/classes/Rallye", ["_method": "GET", "order": "-iniDate"]),
        ])
    }

    /// A batch of the scene's reads: sub-requests with their parameters in the body.
    func batch(_ scene: Scene) -> [[String: Any]] {
        [
            ["method": "GET", "path": "/parse/classes/Video/\(scene.videoID)"],
            ["method": "GET", "path": "/classes/Video", "body": ["where": ["owner": pointer("_User", scene.owner.id)]]],
            ["method": "GET", "path": "/1/users/\(scene.owner.id)"],
            ["method": "GET", "path": "/parse/classes/Activity", "body": ["where": ["video": pointer("Video", scene.videoID), "type": 2]]],
            ["method": "GET", "path": "/parse/classes/Rallye/\(scene.rallyID)"],
        ]
    }

    func checkReadsWithAndWithoutASession() throws {
        let scene = try makeScene()
        for (name, path) in scene.reads {
            let anonymous = try parse("GET", path, as: nil)
            if Self.publicRead {
                XCTAssertEqual(anonymous.status, 200, "\(name), anonymous with --public-read: \(anonymous)")
            } else {
                XCTAssertEqual(anonymous.status, 400, "\(name), anonymous: \(anonymous)")
                XCTAssertEqual(anonymous.object?["code"] as? Int, 119, "\(name), anonymous: \(anonymous)")
            }
            XCTAssertEqual(try parse("GET", path, as: scene.reader).status, 200, "\(name), signed in")
            // A bad token is never read as no token.
            XCTAssertEqual(try client.request("GET", path, headers: ["X-Parse-Application-Id": Self.appID, "X-Parse-Session-Token": "r:nonsense"])
                .object?["code"] as? Int, 209, name)
        }
        for (name, path, body) in scene.tunnelled {
            let anonymous = try parse("POST", path, json: body, as: nil)
            XCTAssertEqual(anonymous.status, Self.publicRead ? 200 : 400, "\(name), anonymous: \(anonymous)")
            if !Self.publicRead { XCTAssertEqual(anonymous.object?["code"] as? Int, 119, "\(name): \(anonymous)") }
            XCTAssertEqual(try parse("POST", path, json: body, as: scene.reader).status, 200, "\(name), signed in")
        }
        // The users' and a video's activities appear to a reader who signed in.
        let comments = try parse("GET", scene.reads[7].1, as: scene.reader)
        XCTAssertEqual((comments.object?["results"] as? [Any])?.count, 1, "\(comments)")
    }

    func checkABatchsReads() throws {
        let scene = try makeScene()
        let requests = batch(scene)
        let anonymous = try parse("POST", "/parse/batch", json: ["requests": requests], as: nil)
        XCTAssertEqual(anonymous.status, 200, "\(anonymous)")
        let answers = try XCTUnwrap(anonymous.json as? [[String: Any]], "\(anonymous)")
        XCTAssertEqual(answers.count, requests.count)
        for (request, answer) in zip(requests, answers) {
            if Self.publicRead {
                XCTAssertNotNil(answer["success"], "\(request): \(answer)")
            } else {
                XCTAssertEqual((answer["error"] as? [String: Any])?["code"] as? Int, 119, "\(request): \(answer)")
            }
        }
        let signedIn = try XCTUnwrap(try parse("POST", "/1/batch", json: ["requests": requests], as: scene.reader).json as? [[String: Any]])
        XCTAssertEqual(signedIn.compactMap { $0["success"] }.count, requests.count, "\(signedIn)")
    }

    /// What an app sends before anyone signs in is not a read: it works without a session.
    func checkTheLaunchCallsNeedNoSession() throws {
        let name = Fake.username()
        let signUp = try parse("POST", "/parse/users", json: ["username": name, "password": "a long password", "email": Fake.email(for: name)], as: nil)
        XCTAssertEqual(signUp.status, 201, "\(signUp)")
        let logIn = try parse("GET", "/parse/login?username=\(name)&password=a%20long%20password", as: nil)
        XCTAssertEqual(logIn.status, 200, "\(logIn)")
        XCTAssertNotNil(logIn.object?["sessionToken"] as? String)
        let tunnelledLogIn = try parse("POST", "/1/login", json: ["_method": "GET", "username": name, "password": "a long password"], as: nil)
        XCTAssertEqual(tunnelledLogIn.status, 200, "\(tunnelledLogIn)")
        XCTAssertEqual(try parse("POST", "/parse/requestPasswordReset", json: ["email": "nobody@example.com"], as: nil).status, 200)
        XCTAssertEqual(try parse("POST", "/parse/logout", as: nil).status, 200)
        // The current user needs the session it names (209, as before), never 119.
        XCTAssertEqual(try parse("GET", "/parse/users/me", as: nil).object?["code"] as? Int, 209)
        // An installation saved before sign-in is not refused as a read (it needs a session as a write, 206, today).
        let installation = try parse("POST", "/parse/classes/_Installation", json: ["deviceType": "ios", "deviceToken": String(repeating: "0f", count: 32)],
                                     as: nil)
        XCTAssertNotEqual(installation.object?["code"] as? Int, 119, "\(installation)")
    }

    /// `/v1` on the same server answers the same reads the same way: 401 without a session
    /// unless `--public-read`.
    func checkV1DecidesTheSame() throws {
        let scene = try makeScene()
        for path in ["/v1/videos/\(scene.videoID)", "/v1/users/\(scene.owner.id)", "/v1/rallies/\(scene.rallyID)", "/v1/videos/\(scene.videoID)/comments"] {
            XCTAssertEqual(try client.request("GET", path).status, Self.publicRead ? 200 : 401, path)
        }
    }
}

/// Without `--public-read`: every read needs a session (119), as `/v1`'s 401.
final class ParseFacadeReadAccessTests: ParseReadAccessCase {
    override class var serverArguments: [String] { ["--parse-app-id", appID, "--bcrypt-cost", "4"] }

    func testReadsWithoutASessionAre119AndWithOneServed() throws { try checkReadsWithAndWithoutASession() }
    func testABatchsReadsNeedTheBatchsSession() throws { try checkABatchsReads() }
    func testTheLaunchCallsNeedNoSession() throws { try checkTheLaunchCallsNeedNoSession() }
    func testV1DecidesTheSame() throws { try checkV1DecidesTheSame() }
}

/// With `--public-read`: the same reads are open to anonymous readers, as on `/v1`.
final class ParseFacadePublicReadTests: ParseReadAccessCase {
    override class var serverArguments: [String] { ["--parse-app-id", appID, "--bcrypt-cost", "4", "--public-read"] }
    override class var publicRead: Bool { true }

    func testAnonymousReadsAreServed() throws { try checkReadsWithAndWithoutASession() }
    func testABatchsReadsAreServedAnonymously() throws { try checkABatchsReads() }
    func testTheLaunchCallsNeedNoSession() throws { try checkTheLaunchCallsNeedNoSession() }
    func testV1DecidesTheSame() throws { try checkV1DecidesTheSame() }
}
