import Foundation
import XCTest

/// Flags (`inappropriate` Activities, type 3) through the Parse facade (API.md "Parse-compatible
/// REST", issue 43): only their author, moderators and admins see them, through any query shape
/// that reads activities: a find with or without `type`, a get by id, a count, a subquery of
/// Activity inside a `$select` or an `$inQuery`, the `_method` tunnel, a batch, and a write that
/// names one. A video's owner must never learn who reported it. The server has `--public-read`,
/// so anonymous readers are checked too.
final class ParseFacadeFlagTests: ServerTestCase {
    static let appID = "vidwrc-flags"

    override class var serverArguments: [String] { ["--parse-app-id", appID, "--bcrypt-cost", "4", "--public-read"] }

    /// One flag by `flagger` on `owner`'s video, beside a like (an activity everyone may see),
    /// and a video of the flagger's own with a comment (what a subquery over flags would reach).
    struct Scene {
        let owner: Account
        let flagger: Account
        let stranger: Account
        let rallyID: String
        let videoID: String
        let flagID: String
        let likeID: String
        let flaggersVideoID: String
        let commentID: String
    }

    // MARK: Helpers

    func parse(_ method: String, _ path: String, json: Any? = nil, as account: Account?) throws -> HTTPResult {
        var headers = ["X-Parse-Application-Id": Self.appID]
        if let account { headers["X-Parse-Session-Token"] = "r:" + account.token }
        return try client.request(method, path, headers: headers, json: json)
    }

    func pointer(_ className: String, _ id: String) -> [String: Any] { ["__type": "Pointer", "className": className, "objectId": id] }

    func query(_ parameters: [String: Any]) throws -> String {
        var components = URLComponents()
        components.queryItems = try parameters.sorted { $0.key < $1.key }.map { key, value in
            if let text = value as? String { return URLQueryItem(name: key, value: text) }
            return URLQueryItem(name: key, value: String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self))
        }
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }

    /// The objectIds a find answers (failing unless 200).
    func found(_ parameters: [String: Any], _ className: String = "Activity", as account: Account?,
               file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let response = try parse("GET", "/parse/classes/\(className)?" + (try query(parameters)), as: account)
        XCTAssertEqual(response.status, 200, "\(response)", file: file, line: line)
        return (response.object?["results"] as? [[String: Any]] ?? []).compactMap { $0["objectId"] as? String }
    }

    func assertParseError(_ response: HTTPResult, status: Int = 400, code: Int, _ message: String = "",
                          file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, status, "\(message) \(response)", file: file, line: line)
        XCTAssertEqual(response.object?["code"] as? Int, code, "\(message) \(response)", file: file, line: line)
    }

    func makeScene() throws -> Scene {
        let owner = try client.signup()
        let flagger = try client.signup()
        let stranger = try client.signup()
        let (rally, video) = try rallyAndVideo(owner: owner)
        let rallyID = try XCTUnwrap(rally["id"] as? String)
        let videoID = try XCTUnwrap(video["id"] as? String)
        let flaggersVideoID = try XCTUnwrap(try postVideo(flagger, rallyId: rallyID)["id"] as? String)
        let flag = try parse("POST", "/parse/classes/Activity", json: [
            "type": 3, "video": pointer("Video", videoID), "content": "reported by the flagger",
        ], as: flagger)
        XCTAssertEqual(flag.status, 201, "\(flag)")
        let like = try parse("POST", "/parse/classes/Activity", json: ["type": 1, "video": pointer("Video", videoID)], as: flagger)
        XCTAssertEqual(like.status, 201, "\(like)")
        let comment = try parse("POST", "/parse/classes/Activity", json: [
            "type": 2, "video": pointer("Video", flaggersVideoID), "content": "nice one",
        ], as: stranger)
        XCTAssertEqual(comment.status, 201, "\(comment)")
        return Scene(owner: owner, flagger: flagger, stranger: stranger, rallyID: rallyID, videoID: videoID,
                     flagID: try XCTUnwrap(flag.object?["objectId"] as? String), likeID: try XCTUnwrap(like.object?["objectId"] as? String),
                     flaggersVideoID: flaggersVideoID, commentID: try XCTUnwrap(comment.object?["objectId"] as? String))
    }

    /// The finds that would list the flag, each with what a reader who may see it gets.
    func finds(_ scene: Scene) -> [(name: String, className: String, parameters: [String: Any], withFlag: [String], withoutFlag: [String])] {
        let video = pointer("Video", scene.videoID)
        let flagsOnTheVideo: [String: Any] = ["className": "Activity", "where": ["video": video, "type": 3]]
        return [
            ("the video's flags", "Activity", ["where": ["video": video, "type": 3]], [scene.flagID], []),
            ("the activities to the owner, any type", "Activity", ["where": ["toUser": pointer("_User", scene.owner.id)], "order": "-createdAt"],
             [scene.likeID, scene.flagID], [scene.likeID]),
            ("the activities to the owner, of type 3", "Activity", ["where": ["toUser": pointer("_User", scene.owner.id), "type": 3]],
             [scene.flagID], []),
            ("the flagger's flags", "Activity", ["where": ["fromUser": pointer("_User", scene.flagger.id), "type": 3]], [scene.flagID], []),
            ("the flag by id in a find", "Activity", ["where": ["objectId": scene.flagID]], [scene.flagID], []),
            ("$or with a type-3 branch", "Activity", ["where": ["$or": [["video": video, "type": 3], ["video": video, "type": 1]]]],
             [scene.likeID, scene.flagID], [scene.likeID]),
            // Who flagged the video, through the videos of the accounts a subquery over its flags names.
            ("$select of the flaggers", "Video", ["where": ["owner": ["$select": ["query": flagsOnTheVideo, "key": "fromUser"]]]],
             [scene.flaggersVideoID], []),
            // The day's videos less the flaggers': the difference would name them.
            ("$dontSelect of the flaggers", "Video", ["where": [
                "rallyId": pointer("Rallye", scene.rallyID), "nDay": 1,
                "owner": ["$dontSelect": ["query": flagsOnTheVideo, "key": "fromUser"]],
            ]], [scene.videoID], [scene.videoID, scene.flaggersVideoID]),
            // The comments on those videos: an $inQuery whose inner query selects over the flags.
            ("$inQuery over a $select of the flaggers", "Activity", ["where": [
                "video": ["$inQuery": ["className": "Video", "where": ["owner": ["$select": ["query": flagsOnTheVideo, "key": "fromUser"]]]]],
                "type": 2,
            ]], [scene.commentID], []),
        ]
    }

    // MARK: Tests

    func testOnlyTheFlagsAuthorAndModeratorsFindIt() throws {
        let scene = try makeScene()
        let moderator = try moderator()
        let readers: [(String, Account?, Bool)] = [
            ("the video's owner", scene.owner, false), ("another user", scene.stranger, false), ("an anonymous reader", nil, false),
            ("the flag's author", scene.flagger, true), ("a moderator", moderator, true),
        ]
        for find in finds(scene) {
            for (reader, account, seesIt) in readers {
                XCTAssertEqual(Set(try found(find.parameters, find.className, as: account)), Set(seesIt ? find.withFlag : find.withoutFlag),
                               "\(find.name), as \(reader)")
            }
        }
        // A by-id get: another's flag is not there (101), as an id that does not exist.
        for (reader, account, seesIt) in readers {
            let get = try parse("GET", "/parse/classes/Activity/\(scene.flagID)", as: account)
            if seesIt {
                XCTAssertEqual(get.status, 200, "as \(reader): \(get)")
                XCTAssertEqual(get.object?["content"] as? String, "reported by the flagger")
            } else {
                assertParseError(get, status: 404, code: 101, "get as \(reader)")
            }
        }
    }

    func testCountsTheTunnelAndBatchesSeeNoOtherFlag() throws {
        let scene = try makeScene()
        let whereFlags: [String: Any] = ["video": pointer("Video", scene.videoID), "type": 3]
        for (reader, account, expected) in [("owner", scene.owner, 0), ("stranger", scene.stranger, 0), ("anonymous", nil, 0),
                                            ("author", scene.flagger, 1), ("moderator", try moderator(), 1)] as [(String, Account?, Int)] {
            let count = try parse("GET", "/parse/classes/Activity?" + (try query(["where": whereFlags, "count": 1, "limit": 0])), as: account)
            XCTAssertEqual(count.status, 200, "\(count)")
            XCTAssertEqual(count.object?["count"] as? Int, expected, "count as \(reader): \(count)")
            let toOwner = try parse("GET", "/parse/classes/Activity?" + (try query(["where": ["toUser": pointer("_User", scene.owner.id)], "count": 1])),
                                    as: account)
            XCTAssertEqual(toOwner.object?["count"] as? Int, 1 + expected, "the like, and the flag only to who may see it, as \(reader)")

            // The iOS SDK's tunnelled find and get.
            let tunnelled = try parse("POST", "/parse/classes/Activity", json: ["_method": "GET", "where": whereFlags], as: account)
            XCTAssertEqual(tunnelled.status, 200, "\(tunnelled)")
            XCTAssertEqual((tunnelled.object?["results"] as? [Any])?.count, expected, "tunnelled find as \(reader)")
            let tunnelledGet = try parse("POST", "/1/classes/Activity/\(scene.flagID)", json: ["_method": "GET"], as: account)
            XCTAssertEqual(tunnelledGet.status, expected == 1 ? 200 : 404, "tunnelled get as \(reader): \(tunnelledGet)")

            // A batch's reads are the same reads.
            let batch = try parse("POST", "/parse/batch", json: ["requests": [
                ["method": "GET", "path": "/parse/classes/Activity/\(scene.flagID)"],
                ["method": "GET", "path": "/1/classes/Activity", "body": ["where": whereFlags, "count": 1]],
            ]], as: account)
            let items = try XCTUnwrap(batch.json as? [[String: Any]], "\(batch)")
            XCTAssertEqual(items.count, 2)
            if expected == 1 {
                XCTAssertEqual((items[0]["success"] as? [String: Any])?["objectId"] as? String, scene.flagID, "batched get as \(reader): \(items[0])")
            } else {
                XCTAssertEqual((items[0]["error"] as? [String: Any])?["code"] as? Int, 101, "batched get as \(reader): \(items[0])")
            }
            XCTAssertEqual(((items[1]["success"] as? [String: Any])?["results"] as? [Any])?.count, expected, "batched find as \(reader): \(items[1])")
            XCTAssertEqual((items[1]["success"] as? [String: Any])?["count"] as? Int, expected, "batched count as \(reader): \(items[1])")
        }
    }

    func testWritesNamingAnothersFlagDoNotRevealIt() throws {
        let scene = try makeScene()
        // Another's flag is answered as an id that does not exist; the author learns it stays.
        for account in [scene.owner, scene.stranger] {
            assertParseError(try parse("DELETE", "/parse/classes/Activity/\(scene.flagID)", as: account), status: 404, code: 101, "delete")
            assertParseError(try parse("DELETE", "/parse/classes/Activity/noSuchFlag", as: account), status: 404, code: 101, "delete of nothing")
            let put = try parse("PUT", "/parse/classes/Activity/\(scene.flagID)", json: ["content": "x"], as: account)
            let putNothing = try parse("PUT", "/parse/classes/Activity/noSuchFlag", json: ["content": "x"], as: account)
            XCTAssertEqual(put.status, putNothing.status, "\(put) / \(putNothing)")
            XCTAssertEqual(put.object?["code"] as? Int, putNothing.object?["code"] as? Int)
            let batch = try parse("POST", "/parse/batch", json: ["requests": [["method": "DELETE", "path": "/classes/Activity/\(scene.flagID)"]]], as: account)
            XCTAssertEqual(((batch.json as? [[String: Any]])?.first?["error"] as? [String: Any])?["code"] as? Int, 101, "\(batch)")
        }
        assertParseError(try parse("DELETE", "/parse/classes/Activity/\(scene.flagID)", as: scene.flagger), code: 119, "a flag is not taken back")
        XCTAssertEqual(try found(["where": ["video": pointer("Video", scene.videoID), "type": 3]], as: scene.flagger), [scene.flagID])
    }

    /// No class points to an Activity, so no `include` or `$inQuery` can name one: such a
    /// subquery is refused before it reads anything.
    func testNoIncludeOrInQueryReachesAnActivity() throws {
        let scene = try makeScene()
        let flags: [String: Any] = ["className": "Activity", "where": ["video": pointer("Video", scene.videoID), "type": 3]]
        assertParseError(try parse("GET", "/parse/classes/Activity?" + (try query(["where": ["video": ["$inQuery": flags], "type": 1]])),
                                   as: scene.owner), code: 102)
        assertParseError(try parse("GET", "/parse/classes/Activity?" + (try query(["where": ["video": pointer("Video", scene.videoID), "type": 1],
                                                                                  "include": "activity"])), as: scene.owner), code: 102)
        // The included pointers of the flagger's own flag are the video and the users, never another activity.
        let own = try parse("GET", "/parse/classes/Activity/\(scene.flagID)?include=fromUser,video", as: scene.flagger)
        XCTAssertEqual((own.object?["video"] as? [String: Any])?["objectId"] as? String, scene.videoID, "\(own)")
    }
}
