import Foundation
import XCTest

/// `_Installation`, profile edits and the subquery operators through the real binary, with
/// the iOS SDK 1.12's wire shapes (PARSE-REST.md §2.2): PFInstallation's save on the
/// `classes` path with `AddUnique` channels, the current user's save on `classes/_User`, and
/// `whereKey:matchesKey:inQuery:` tunnelled in a POST.
final class ParseFacadeInstallationTests: ServerTestCase {
    static let appID = "vidwrc-installations"
    static let apnsToken = String(repeating: "ab12", count: 16)

    override class var serverArguments: [String] { ["--parse-app-id", appID, "--bcrypt-cost", "4"] }

    func parse(_ method: String, _ path: String, json: Any? = nil, as account: Account? = nil, headers: [String: String] = [:]) throws -> HTTPResult {
        var fields = headers
        fields["X-Parse-Application-Id"] = Self.appID
        if let account { fields["X-Parse-Session-Token"] = "r:" + account.token }
        return try client.request(method, path, headers: fields, json: json)
    }

    func pointer(_ className: String, _ id: String) -> [String: Any] { ["__type": "Pointer", "className": className, "objectId": id] }

    func assertParseError(_ response: HTTPResult, status: Int = 400, code: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, status, "\(response)", file: file, line: line)
        XCTAssertEqual(response.object?["code"] as? Int, code, "\(response)", file: file, line: line)
        XCTAssertNotNil(response.object?["error"] as? String, "\(response)", file: file, line: line)
    }

    func settings(_ account: Account) throws -> [String: Any] {
        try XCTUnwrap(try getObject("/v1/users/me", account.token)["notificationSettings"] as? [String: Any])
    }

    // MARK: _Installation

    /// PFInstallation's first save, then its `AddUnique`/`Remove` of channels: one installation,
    /// seen on /v1's side as the device and as the user's notificationSettings.
    func testAnInstallationIsTheUsersDeviceAndItsChannelsTheirSettings() throws {
        let user = try client.signup()
        let star = try client.signup()
        assertSuccess(try client.request("PUT", "/v1/users/\(star.id)/follow", token: user.token), 200)
        let body: [String: Any] = [
            "deviceType": "ios", "deviceToken": Self.apnsToken.uppercased(), "installationId": UUID().uuidString.lowercased(),
            "badge": 0, "timeZone": "Europe/Madrid", "appName": "VidWRC", "appIdentifier": "com.vidwrc", "appVersion": "2.0",
            "parseVersion": "1.12.0", "localeIdentifier": "es-ES",
            "channels": ["__op": "AddUnique", "objects": ["NewVideos", "IN_\(user.id)", "OUT_\(star.id)"]],
        ]
        let created = try parse("POST", "/parse/classes/_Installation", json: body, as: user,
                                headers: ["X-Parse-Installation-Id": body["installationId"] as? String ?? ""])
        XCTAssertEqual(created.status, 201, "\(created)")
        let id = try XCTUnwrap(created.object?["objectId"] as? String)
        XCTAssertNotNil(created.object?["createdAt"] as? String)
        XCTAssertEqual(created.headers["Location"], "/parse/classes/_Installation/\(id)")
        XCTAssertEqual(try settings(user) as NSDictionary, ["newVideos": true, "myActivity": true, "followingActivity": true] as NSDictionary)

        // The same token again is the same object (parse-server's upsert), on /installations too.
        let again = try parse("POST", "/1/installations", json: ["deviceType": "ios", "deviceToken": Self.apnsToken], as: user)
        XCTAssertEqual(again.status, 200, "\(again)")
        XCTAssertEqual(again.object?["objectId"] as? String, id)

        let fetched = try parse("GET", "/parse/classes/_Installation/\(id)", as: user)
        XCTAssertEqual(fetched.status, 200, "\(fetched)")
        XCTAssertEqual(fetched.object?["deviceToken"] as? String, Self.apnsToken, "APNs tokens are stored lower-cased")
        XCTAssertEqual(fetched.object?["deviceType"] as? String, "ios")
        XCTAssertEqual(fetched.object?["localeIdentifier"] as? String, "es-ES")
        XCTAssertEqual(Set(fetched.object?["channels"] as? [String] ?? []), ["NewVideos", "IN_\(user.id)", "OUT_\(star.id)"])

        // Removing the only followed account's channel (an unfollow) and NewVideos turns both off.
        let removed = try parse("PUT", "/parse/classes/_Installation/\(id)",
                                json: ["channels": ["__op": "Remove", "objects": ["NewVideos", "OUT_\(star.id)"]]], as: user)
        XCTAssertEqual(removed.status, 200, "\(removed)")
        XCTAssertNotNil(removed.object?["updatedAt"] as? String)
        XCTAssertEqual(try settings(user) as NSDictionary, ["newVideos": false, "myActivity": true, "followingActivity": false] as NSDictionary)
        // Set wholesale.
        assertSuccess(try parse("PUT", "/parse/installations/\(id)", json: ["channels": ["NewVideos"]], as: user), 200)
        XCTAssertEqual(try settings(user) as NSDictionary, ["newVideos": true, "myActivity": false, "followingActivity": false] as NSDictionary)

        // Another user sees no such installation; nobody finds or deletes installations.
        let other = try client.signup()
        assertParseError(try parse("GET", "/parse/classes/_Installation/\(id)", as: other), status: 404, code: 101)
        assertParseError(try parse("PUT", "/parse/classes/_Installation/\(id)", json: ["channels": []], as: other), status: 404, code: 101)
        assertParseError(try parse("GET", "/parse/classes/_Installation", as: user), code: 119)
        assertParseError(try parse("DELETE", "/parse/classes/_Installation/\(id)", as: user), code: 119)
    }

    func testInstallationRefusals() throws {
        let user = try client.signup()
        let path = "/parse/classes/_Installation"
        // No session: installations are a user's here.
        assertParseError(try parse("POST", path, json: ["deviceType": "ios", "deviceToken": Self.apnsToken]), code: 206)
        assertParseError(try parse("POST", path, json: ["deviceToken": Self.apnsToken], as: user), code: 135)
        assertParseError(try parse("POST", path, json: ["deviceType": "ios"], as: user), code: 135)
        // A non-hex APNs token: 142, decided (docs/parse-migration.md).
        assertParseError(try parse("POST", path, json: ["deviceType": "ios", "deviceToken": "not-a-hex-token-at-all"], as: user), code: 142)
        assertParseError(try parse("POST", path, json: ["deviceType": "winphone", "deviceToken": Self.apnsToken], as: user), code: 142)
        assertParseError(try parse("POST", path, json: ["deviceType": "ios", "deviceToken": Self.apnsToken, "favouriteDriver": "Ogier"], as: user), code: 105)
        assertParseError(try parse("POST", path, json: ["deviceType": "ios", "deviceToken": 12], as: user), code: 111)
        assertParseError(try parse("POST", path, json: ["deviceType": "ios", "deviceToken": Self.apnsToken, "channels": ["1bad"]], as: user), code: 112)
        assertParseError(try parse("POST", path, json: ["deviceType": "ios", "deviceToken": Self.apnsToken, "user": pointer("_User", "someoneElse")],
                               as: user), code: 119)
        // An FCM token with an Android device.
        let android = try parse("POST", "/parse/installations", json: ["deviceType": "android", "deviceToken": "fcm:APA91b-" + Fake.word()], as: user)
        XCTAssertEqual(android.status, 201, "\(android)")
        let id = try XCTUnwrap(android.object?["objectId"] as? String)
        assertParseError(try parse("PUT", "/parse/installations/\(id)", json: ["deviceType": "ios"], as: user), code: 136)
        assertParseError(try parse("PUT", "/parse/installations/\(id)", json: ["deviceToken": "fcm:other-" + Fake.word()], as: user), code: 136)
    }

    // MARK: Profile

    /// The iOS SDK saves the current user with `PUT /classes/_User/<id>`; qs-parse-rest sends the
    /// whole object back. The displayName is /v1's afterwards.
    func testTheCallersProfileEditsAndWhatIsRefused() throws {
        let user = try client.signup()
        let edited = try parse("PUT", "/parse/classes/_User/\(user.id)", json: ["displayName": "Seb the Ninth"], as: user)
        XCTAssertEqual(edited.status, 200, "\(edited)")
        XCTAssertNotNil(edited.object?["updatedAt"] as? String)
        XCTAssertEqual(try getObject("/v1/users/me", user.token)["displayName"] as? String, "Seb the Ninth")
        // The whole object back, unchanged fields included.
        let me = try parse("GET", "/parse/users/me", as: user)
        var whole = try XCTUnwrap(me.object)
        whole["displayName"] = "Seb"
        assertSuccess(try parse("PUT", "/1/users/\(user.id)", json: whole, as: user), 200)
        XCTAssertEqual(try getObject("/v1/users/me", user.token)["displayName"] as? String, "Seb")

        assertParseError(try parse("PUT", "/parse/users/\(user.id)", json: ["displayName": "x"]), code: 206)
        let other = try client.signup()
        assertParseError(try parse("PUT", "/parse/users/\(other.id)", json: ["displayName": "x"], as: user), status: 404, code: 101)
        assertParseError(try parse("PUT", "/parse/users/\(user.id)", json: ["email": "new-\(user.email)"], as: user), code: 119)
        assertParseError(try parse("PUT", "/parse/users/\(user.id)", json: ["password": "a new password"], as: user), code: 119)
        assertParseError(try parse("PUT", "/parse/users/\(user.id)", json: ["username": "renamed_\(Fake.word())"], as: user), code: 119)
        assertParseError(try parse("PUT", "/parse/users/\(user.id)", json: ["displayName": 7], as: user), code: 111)
        assertParseError(try parse("PUT", "/parse/users/\(user.id)", json: ["shoeSize": 44], as: user), code: 105)
        assertParseError(try parse("PUT", "/parse/users/\(user.id)", json: ["displayName": String(repeating: "x", count: 500)], as: user), code: 142)
    }

    // MARK: Subqueries on the wire

    /// `whereKey:@"owner" matchesKey:@"toUser" inQuery:myFollows`, tunnelled as the iOS SDK does,
    /// under both prefixes; and `$inQuery` for the activity on my videos.
    func testTheVideosAndActivitiesOfThePeopleIFollow() throws {
        let fan = try client.signup()
        let star = try client.signup()
        let stranger = try client.signup()
        let (rally, starVideo) = try rallyAndVideo(owner: star)
        let rallyID = try XCTUnwrap(rally["id"] as? String)
        try postVideo(stranger, rallyId: rallyID)
        assertSuccess(try client.request("PUT", "/v1/users/\(star.id)/follow", token: fan.token), 200)
        let starVideoID = try XCTUnwrap(starVideo["id"] as? String)
        assertSuccess(try client.request("PUT", "/v1/videos/\(starVideoID)/like", token: stranger.token), 200)

        let follows: [String: Any] = ["$select": ["query": ["className": "Activity", "where": ["fromUser": pointer("_User", fan.id), "type": 4]],
                                                  "key": "toUser"]]
        // The fan's own video is not among the videos of the people they follow (the home
        // timeline, which serves this shape, holds it too).
        try postVideo(fan, rallyId: rallyID)
        let star2 = try postVideo(star, rallyId: rallyID, day: 2)
        for prefix in ["/parse", "/1"] {
            let videos = try parse("POST", prefix + "/classes/Video", json: ["_method": "GET", "where": ["owner": follows], "order": "-createdAt",
                                                                            "limit": "20", "include": "owner"], as: fan)
            XCTAssertEqual(videos.status, 200, "\(videos)")
            let results = videos.object?["results"] as? [[String: Any]] ?? []
            XCTAssertEqual(results.compactMap { $0["objectId"] as? String }, [star2["id"] as? String ?? "", starVideoID])
            XCTAssertEqual((results.first?["owner"] as? [String: Any])?["__type"] as? String, "Object")
        }
        // The same list through the general subquery (a filter more makes it another shape),
        // and a page of it with skip.
        let general = try parse("POST", "/parse/classes/Video", json: ["_method": "GET", "where": ["owner": follows, "nDay": ["$gte": 0]],
                                                                     "order": "-createdAt"], as: fan)
        XCTAssertEqual((general.object?["results"] as? [[String: Any]] ?? []).compactMap { $0["objectId"] as? String },
                       [star2["id"] as? String ?? "", starVideoID], "\(general)")
        let second = try parse("POST", "/parse/classes/Video", json: ["_method": "GET", "where": ["owner": follows], "order": "-createdAt",
                                                                    "skip": "1", "limit": "1"], as: fan)
        XCTAssertEqual((second.object?["results"] as? [[String: Any]] ?? []).compactMap { $0["objectId"] as? String }, [starVideoID], "\(second)")
        // The likes on the star's videos, by `$inQuery` on the star's videos.
        let onVideos = try parse("POST", "/parse/classes/Activity", json: [
            "_method": "GET", "where": ["video": ["$inQuery": ["className": "Video", "where": ["owner": pointer("_User", star.id)]]], "type": 1],
            "count": "1", "limit": "0"], as: star)
        XCTAssertEqual(onVideos.object?["count"] as? Int, 1, "\(onVideos)")
        // The activities of the people I follow: the star's like, once they like something.
        assertSuccess(try client.request("PUT", "/v1/videos/\(starVideoID)/like", token: star.token), 200)
        let likes = try parse("POST", "/parse/classes/Activity", json: ["_method": "GET", "where": ["fromUser": follows, "type": 1]], as: fan)
        XCTAssertEqual((likes.object?["results"] as? [[String: Any]])?.count, 1, "\(likes)")
        // `$or` of two index-served branches: the star's likes, or the activity to the star (the
        // stranger's like of the star's video): both, each once.
        let either = try parse("POST", "/parse/classes/Activity", json: ["_method": "GET", "where": ["$or": [
            ["fromUser": pointer("_User", star.id), "type": 1], ["toUser": pointer("_User", star.id)]]], "order": "-createdAt"], as: fan)
        let eitherIDs = (either.object?["results"] as? [[String: Any]] ?? []).compactMap { $0["objectId"] as? String }
        XCTAssertEqual(either.status, 200, "\(either)")
        XCTAssertEqual(Set(eitherIDs).count, eitherIDs.count)
        XCTAssertGreaterThanOrEqual(eitherIDs.count, 2, "\(either)")
        // A subquery no index serves is refused, never run.
        assertParseError(try parse("POST", "/parse/classes/Video", json: ["_method": "GET", "where": [
            "owner": ["$select": ["query": ["className": "Activity", "where": ["type": 4]], "key": "toUser"]]]], as: fan), code: 102)
        // A title prefix within a user's videos.
        let prefixed = try parse("GET", "/parse/classes/Video?where=" + queryValue(
            #"{"owner":{"__type":"Pointer","className":"_User","objectId":"\#(star.id)"},"title":{"$regex":"^\\Q\#(starVideo["title"] as? String ?? "")\\E"}}"#),
            as: fan)
        XCTAssertEqual((prefixed.object?["results"] as? [[String: Any]])?.count, 1, "\(prefixed)")
    }
}
