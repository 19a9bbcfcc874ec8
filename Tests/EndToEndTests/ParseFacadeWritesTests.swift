import Foundation
import XCTest

/// Writes through the Parse facade, in the real binary: `Video` and `Activity` creates,
/// updates and deletes go through the domain `/v1` writes through, so what one API writes the
/// other reads, and the counters stay the server's (PARSE-REST.md §1.3, §1.5, §2.2).
final class ParseFacadeWritesTests: ServerTestCase {
    static let appID = "vidwrc-writes"

    override class var serverArguments: [String] { ["--parse-app-id", appID, "--bcrypt-cost", "4"] }

    // MARK: Helpers

    /// A Parse request with the application id and, for an account, its token as `r:<token>`.
    func parse(_ method: String, _ path: String, json: Any? = nil, as account: Account? = nil) throws -> HTTPResult {
        var headers = ["X-Parse-Application-Id": Self.appID]
        if let account { headers["X-Parse-Session-Token"] = "r:" + account.token }
        return try client.request(method, path, headers: headers, json: json)
    }

    func pointer(_ className: String, _ id: String) -> [String: Any] { ["__type": "Pointer", "className": className, "objectId": id] }

    func assertParseError(_ response: HTTPResult, status: Int = 400, code: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, status, "\(response)", file: file, line: line)
        XCTAssertEqual(response.object?["code"] as? Int, code, "\(response)", file: file, line: line)
    }

    func whereQuery(_ constraints: [String: Any], order: String? = nil) throws -> String {
        var items = [URLQueryItem(name: "where", value: String(decoding: try JSONSerialization.data(withJSONObject: constraints), as: UTF8.self))]
        if let order { items.append(URLQueryItem(name: "order", value: order)) }
        var components = URLComponents()
        components.queryItems = items
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }

    func results(_ response: HTTPResult, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        XCTAssertEqual(response.status, 200, "\(response)", file: file, line: line)
        return response.object?["results"] as? [[String: Any]] ?? []
    }

    func like(_ videoID: String, as account: Account) throws -> HTTPResult {
        try parse("POST", "/parse/classes/Activity", json: ["type": 1, "fromUser": pointer("_User", account.id), "video": pointer("Video", videoID)],
                  as: account)
    }

    func likesCount(_ videoID: String, _ token: String) throws -> Int? {
        jsonInt(try getObject("/v1/videos/\(videoID)", token)["likesCount"])
    }

    // MARK: Video

    func testAVideoCreatedEditedAndDeletedThroughParseIsThatVideoOnV1() throws {
        let owner = try client.signup()
        let rallyID = try XCTUnwrap(try createRally()["id"] as? String)
        let youtubeID = Fake.youtubeId()
        let created = try parse("POST", "/parse/classes/Video", json: [
            "youtubeID": youtubeID, "title": "SS1 flat out", "description": "From the crest", "nDay": 1,
            "rallyId": pointer("Rallye", rallyID), "owner": pointer("_User", owner.id),
            "nLikes": 500, "nComments": ["__op": "Increment", "amount": 3], "ACL": ["*": ["read": true]],
        ], as: owner)
        XCTAssertEqual(created.status, 201, "\(created)")
        let id = try XCTUnwrap(created.object?["objectId"] as? String)
        XCTAssertNotNil(created.object?["createdAt"] as? String)
        XCTAssertEqual(created.headers["Location"], "/parse/classes/Video/\(id)")

        let onV1 = try getObject("/v1/videos/\(id)", owner.token)
        XCTAssertEqual(onV1["title"] as? String, "SS1 flat out")
        XCTAssertEqual(onV1["youtubeId"] as? String, youtubeID)
        XCTAssertEqual(jsonInt(onV1["likesCount"]), 0, "nLikes written by the client is ignored")
        XCTAssertEqual(jsonInt(onV1["commentsCount"]), 0, "an Increment on nComments is ignored")

        // Someone else's video is refused; the owner's edit lands, the counters stay the server's.
        let stranger = try client.signup()
        assertParseError(try parse("PUT", "/parse/classes/Video/\(id)", json: ["title": "Mine now"], as: stranger), code: 119)
        let edited = try parse("PUT", "/1/classes/Video/\(id)", json: ["title": "SS1 flat out (onboard)", "nLikes": ["__op": "Increment", "amount": 1]],
                               as: owner)
        XCTAssertEqual(edited.status, 200, "\(edited)")
        XCTAssertNotNil(edited.object?["updatedAt"] as? String)
        XCTAssertEqual(jsonInt(edited.object?["nLikes"]), 0, "the answer carries the server's counter")
        XCTAssertEqual(try getObject("/v1/videos/\(id)", owner.token)["title"] as? String, "SS1 flat out (onboard)")
        assertParseError(try parse("PUT", "/parse/classes/Video/\(id)", json: ["nDay": 2], as: owner), code: 119)

        // The iOS SDK's tunnelled DELETE.
        let deleted = try parse("POST", "/parse/classes/Video/\(id)", json: ["_method": "DELETE"], as: owner)
        XCTAssertEqual(deleted.status, 200, "\(deleted)")
        XCTAssertEqual(deleted.object?.count, 0)
        XCTAssertEqual(try client.request("GET", "/v1/videos/\(id)", token: owner.token).status, 404)
    }

    func testBadVideoBodiesAreRefusedWithParseCodes() throws {
        let owner = try client.signup()
        let other = try client.signup()
        let rallyID = try XCTUnwrap(try createRally()["id"] as? String)
        let good: [String: Any] = ["youtubeID": Fake.youtubeId(), "title": "T", "nDay": 1, "rallyId": pointer("Rallye", rallyID)]
        assertParseError(try parse("POST", "/parse/classes/Video", json: good.merging(["owner": pointer("_User", other.id)]) { $1 }, as: owner), code: 119)
        assertParseError(try parse("POST", "/parse/classes/Video", json: good.merging(["speed": 120]) { $1 }, as: owner), code: 105)
        assertParseError(try parse("POST", "/parse/classes/Video", json: good.merging(["nDay": "1"]) { $1 }, as: owner), code: 111)
        assertParseError(try parse("POST", "/parse/classes/Video", json: good.merging(["rallyId": rallyID]) { $1 }, as: owner), code: 111)
        assertParseError(try parse("POST", "/parse/classes/Video", json: good, as: nil), code: 209)
        assertParseError(try parse("POST", "/parse/classes/Rallye", json: ["name": "X"], as: owner), code: 119)
    }

    // MARK: Activity

    func testLikesAcrossBothAPIsAreOneSetOfLikes() throws {
        let owner = try client.signup()
        let videoID = try XCTUnwrap(try rallyAndVideo(owner: owner).video["id"] as? String)
        let viaParse = try client.signup()
        let viaV1 = try client.signup()

        let first = try like(videoID, as: viaParse)
        XCTAssertEqual(first.status, 201, "\(first)")
        let likeID = try XCTUnwrap(first.object?["objectId"] as? String)
        let second = try like(videoID, as: viaParse)
        XCTAssertEqual(second.object?["objectId"] as? String, likeID, "liking twice is the same object: \(second)")
        XCTAssertEqual(try likesCount(videoID, owner.token), 1)

        XCTAssertEqual(try client.request("PUT", "/v1/videos/\(videoID)/like", token: viaV1.token).status, 200)
        XCTAssertEqual(try likesCount(videoID, owner.token), 2)

        let videoLikes = results(try parse("GET", "/parse/classes/Activity?" + (try whereQuery(["video": pointer("Video", videoID), "type": 1], order: "-createdAt")),
                                           as: owner))
        XCTAssertEqual(Set(videoLikes.compactMap { ($0["fromUser"] as? [String: Any])?["objectId"] as? String }), [viaParse.id, viaV1.id])
        let myLikes = results(try parse("GET", "/parse/classes/Activity?" + (try whereQuery(["fromUser": pointer("_User", viaV1.id), "type": 1])),
                                        as: viaV1))
        XCTAssertEqual(myLikes.compactMap { ($0["video"] as? [String: Any])?["objectId"] as? String }, [videoID], "a /v1 like is a Parse Activity")
        let toMe = results(try parse("GET", "/parse/classes/Activity?" + (try whereQuery(["toUser": pointer("_User", owner.id)], order: "-createdAt")),
                                     as: owner))
        XCTAssertEqual(toMe.count, 2)
        XCTAssertEqual(toMe.first?["type"] as? Int, 1)

        // Taking a like back is the author's; the /v1 count follows.
        let v1LikeID = try XCTUnwrap(myLikes.first?["objectId"] as? String)
        assertParseError(try parse("DELETE", "/parse/classes/Activity/\(v1LikeID)", as: viaParse), code: 119)
        XCTAssertEqual(try parse("DELETE", "/parse/classes/Activity/\(likeID)", as: viaParse).status, 200)
        XCTAssertEqual(try likesCount(videoID, owner.token), 1)
        XCTAssertEqual(try StoredCounters.activities(server, type: 1, videoId: videoID), 1)

        // A query no index serves is refused, not scanned.
        assertParseError(try parse("GET", "/parse/classes/Activity?" + (try whereQuery(["type": 1])), as: owner), code: 102)
    }

    func testFollowsAndCommentsThroughActivity() throws {
        let me = try client.signup()
        let them = try client.signup()
        let videoID = try XCTUnwrap(try rallyAndVideo(owner: them).video["id"] as? String)

        let follow = ["type": 4, "fromUser": pointer("_User", me.id), "toUser": pointer("_User", them.id)] as [String: Any]
        let first = try parse("POST", "/parse/classes/Activity", json: follow, as: me)
        XCTAssertEqual(first.status, 201, "\(first)")
        XCTAssertEqual(try parse("POST", "/parse/classes/Activity", json: follow, as: me).object?["objectId"] as? String,
                       first.object?["objectId"] as? String, "following twice is the same object")
        let following = try firstPage("/v1/users/\(me.id)/following", me.token)
        XCTAssertEqual(following.compactMap { $0["id"] as? String }, [them.id])
        let iFollow = results(try parse("GET", "/parse/classes/Activity?" + (try whereQuery(["fromUser": pointer("_User", me.id), "type": 4])), as: me))
        XCTAssertEqual(iFollow.compactMap { ($0["toUser"] as? [String: Any])?["objectId"] as? String }, [them.id])
        assertParseError(try parse("POST", "/parse/classes/Activity", json: follow.merging(["fromUser": pointer("_User", them.id)]) { $1 }, as: me),
                         code: 119)

        let comment = try parse("POST", "/parse/classes/Activity", json: [
            "type": 2, "video": pointer("Video", videoID), "toUser": pointer("_User", them.id), "content": "Huge jump",
        ], as: me)
        XCTAssertEqual(comment.status, 201, "\(comment)")
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(videoID)", me.token)["commentsCount"]), 1)
        let comments = results(try parse("GET", "/parse/classes/Activity?" + (try whereQuery(["video": pointer("Video", videoID), "type": 2], order: "createdAt")),
                                         as: me))
        XCTAssertEqual(comments.first?["content"] as? String, "Huge jump")
        let included = results(try parse("GET", "/parse/classes/Activity?" + (try whereQuery(["toUser": pointer("_User", them.id)], order: "-createdAt"))
                                         + "&include=fromUser,video", as: them))
        // The comment and the follow (which has no video); both may share a millisecond.
        XCTAssertEqual(Set(included.compactMap { $0["type"] as? Int }), [2, 4], "\(included)")
        let commented = try XCTUnwrap(included.first { $0["type"] as? Int == 2 })
        let from = try XCTUnwrap(commented["fromUser"] as? [String: Any], "\(included)")
        XCTAssertEqual(from["__type"] as? String, "Object")
        XCTAssertEqual(from["username"] as? String, me.username)
        XCTAssertEqual((commented["video"] as? [String: Any])?["className"] as? String, "Video")
        XCTAssertNil(included.first { $0["type"] as? Int == 4 }?["video"])
        XCTAssertEqual(try parse("DELETE", "/parse/classes/Activity/\(try XCTUnwrap(comment.object?["objectId"] as? String))", as: me).status, 200)
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(videoID)", me.token)["commentsCount"]), 0)

        // Unfollow through Parse, seen on /v1.
        XCTAssertEqual(try parse("DELETE", "/parse/classes/Activity/\(try XCTUnwrap(first.object?["objectId"] as? String))", as: me).status, 200)
        XCTAssertEqual(try firstPage("/v1/users/\(me.id)/following", me.token).count, 0)
    }

    func testAHiddenVideosActivitiesAreOutOfSight() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let videoID = try XCTUnwrap(try rallyAndVideo(owner: owner).video["id"] as? String)
        XCTAssertEqual(try like(videoID, as: fan).status, 201)
        try server.withDatabase { db in try db.write("UPDATE videos SET hidden = TRUE WHERE id = \(videoID)") }
        let path = "/parse/classes/Activity?" + (try whereQuery(["video": pointer("Video", videoID), "type": 1]))
        XCTAssertEqual(results(try parse("GET", path, as: fan)).count, 0, "a hidden video's likes are out of a stranger's sight")
        XCTAssertEqual(results(try parse("GET", path, as: owner)).count, 1, "its owner still sees them")
        assertParseError(try like(videoID, as: try client.signup()), status: 404, code: 101)
    }

    func testABannedUsersActivitiesAreOutOfSightExceptToModerators() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let videoID = try XCTUnwrap(try rallyAndVideo(owner: owner).video["id"] as? String)
        XCTAssertEqual(try like(videoID, as: fan).status, 201)
        let moderator = try moderator()
        XCTAssertEqual(try client.request("POST", "/v1/moderation/users/\(fan.id)/ban", json: ["reason": "spam"], token: moderator.token).status, 200)
        let path = "/parse/classes/Activity?" + (try whereQuery(["toUser": pointer("_User", owner.id)]))
        XCTAssertEqual(results(try parse("GET", path, as: owner)).count, 0, "a banned user's like is out of sight, as on /v1")
        XCTAssertEqual(try firstPage("/v1/videos/\(videoID)/likes", owner.token).count, 0, "as /v1 shows it")
        XCTAssertEqual(results(try parse("GET", path, as: moderator)).count, 1, "moderators see it")
    }

    func testConcurrentLikesFromBothAPIsKeepTheCounterExact() throws {
        let owner = try client.signup()
        let videoID = try XCTUnwrap(try rallyAndVideo(owner: owner).video["id"] as? String)
        var fans: [Account] = []
        for _ in 0..<10 { fans.append(try client.signup()) }
        let tokens = fans.map(\.token)
        let ids = fans.map(\.id)
        let appID = Self.appID
        let outcomes = runConcurrently(port: server.port, fans.count) { index, client in
            do {
                if index % 2 == 0 { return "\(try client.request("PUT", "/v1/videos/\(videoID)/like", token: tokens[index]).status)" }
                let body: [String: Any] = ["type": 1, "fromUser": ["__type": "Pointer", "className": "_User", "objectId": ids[index]],
                                           "video": ["__type": "Pointer", "className": "Video", "objectId": videoID]]
                return "\(try client.request("POST", "/parse/classes/Activity", headers: ["X-Parse-Application-Id": appID, "X-Parse-Session-Token": "r:" + tokens[index]], json: body).status)"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(outcomes.sorted(), Array(repeating: "200", count: 5) + Array(repeating: "201", count: 5))
        XCTAssertEqual(try likesCount(videoID, owner.token), 10)
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "likes_count", id: videoID), 10)
        XCTAssertEqual(try StoredCounters.activities(server, type: 1, videoId: videoID), 10)
    }

    // MARK: Batch and push

    func testABatchAnswersEachRequestOnItsOwn() throws {
        let owner = try client.signup()
        let me = try client.signup()
        let videoID = try XCTUnwrap(try rallyAndVideo(owner: owner).video["id"] as? String)
        let answer = try parse("POST", "/parse/batch", json: ["requests": [
            ["method": "POST", "path": "/parse/classes/Activity", "body": ["type": 1, "video": pointer("Video", videoID)]],
            ["method": "GET", "path": "/1/classes/Video/\(videoID)"],
            ["method": "PUT", "path": "/classes/Video/\(videoID)", "body": ["title": "Not mine"]],
            ["method": "GET", "path": "/parse/classes/Nope/x/y"],
            ["method": "POST", "path": "/parse/classes/Activity", "body": ["type": 9, "video": pointer("Video", videoID)]],
        ]], as: me)
        XCTAssertEqual(answer.status, 200, "\(answer)")
        let items = try XCTUnwrap(answer.json as? [[String: Any]], "\(answer)")
        XCTAssertEqual(items.count, 5)
        XCTAssertNotNil((items[0]["success"] as? [String: Any])?["objectId"] as? String, "\(items[0])")
        XCTAssertEqual(jsonInt((items[1]["success"] as? [String: Any])?["nLikes"]), 1, "the batch's like is seen by the next request: \(items[1])")
        XCTAssertEqual((items[2]["error"] as? [String: Any])?["code"] as? Int, 119, "\(items[2])")
        XCTAssertEqual((items[3]["error"] as? [String: Any])?["code"] as? Int, 107, "\(items[3])")
        XCTAssertEqual((items[4]["error"] as? [String: Any])?["code"] as? Int, 142, "\(items[4])")
        XCTAssertEqual(try likesCount(videoID, owner.token), 1)

        // Sign-up and login count their own rate limits per request: not batched.
        let credentials = try parse("POST", "/parse/batch", json: ["requests": [
            ["method": "GET", "path": "/parse/login", "body": ["username": me.username, "password": me.password]],
            ["method": "POST", "path": "/1/users", "body": ["username": "batched", "password": "secret-enough", "email": "batched@example.com"]],
        ]], as: me)
        let refusals = try XCTUnwrap(credentials.json as? [[String: Any]], "\(credentials)")
        XCTAssertEqual(refusals.compactMap { ($0["error"] as? [String: Any])?["code"] as? Int }, [119, 119], "\(refusals)")

        let tooMany = Array(repeating: ["method": "GET", "path": "/parse/classes/Video/\(videoID)"] as [String: Any], count: 51)
        assertParseError(try parse("POST", "/parse/batch", json: ["requests": tooMany], as: me), code: 107)
        assertParseError(try parse("POST", "/parse/batch", json: ["requests": "all"], as: me), code: 107)
    }

    func testAClientPushIsAcceptedAndDropped() throws {
        let me = try client.signup()
        let pushed = try parse("POST", "/parse/push", json: ["channels": ["NewVideos"], "data": ["alert": "hi"]], as: me)
        XCTAssertEqual(pushed.status, 200, "\(pushed)")
        XCTAssertEqual(pushed.object?["result"] as? Bool, true)
    }
}

/// A Parse write counts against `/v1`'s per-user write limit, as the same write on `/v1` does.
final class ParseFacadeWriteLimitTests: ServerTestCase {
    override class var serverArguments: [String] { ["--parse-app-id", ParseFacadeWritesTests.appID, "--limit-writes", "3/m"] }

    func testParseWritesCountAgainstTheUsersWriteLimit() throws {
        let owner = try client.signup()
        let videoID = try XCTUnwrap(try rallyAndVideo(owner: owner).video["id"] as? String)
        let fan = try client.signup()
        let headers = ["X-Parse-Application-Id": ParseFacadeWritesTests.appID, "X-Parse-Session-Token": "r:" + fan.token]
        let like: [String: Any] = ["type": 1, "video": ["__type": "Pointer", "className": "Video", "objectId": videoID]]
        XCTAssertEqual(try client.request("PUT", "/v1/videos/\(videoID)/like", token: fan.token).status, 200)
        XCTAssertEqual(try client.request("DELETE", "/v1/videos/\(videoID)/like", token: fan.token).status, 200)
        XCTAssertEqual(try client.request("POST", "/parse/classes/Activity", headers: headers, json: like).status, 201)
        let refused = try client.request("POST", "/parse/classes/Activity", headers: headers, json: like)
        XCTAssertEqual(refused.status, 429, "\(refused)")
        XCTAssertEqual(refused.object?["code"] as? Int, 100, "\(refused)")
        XCTAssertNotNil(refused.headers["Retry-After"])
    }
}
