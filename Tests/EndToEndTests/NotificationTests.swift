import Foundation
import TestSupport
import XCTest

/// API.md "Notifications": who hears about what, the inbox, read marks, and notifications
/// leaving with the content they are about. Through the real binary, without push services
/// (the inbox gets everything whether or not a device is registered).
final class NotificationTests: ServerTestCase {
    private var rallyId = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        rallyId = try createRally()["id"] as? String ?? ""
    }

    /// The account's inbox without the new-video broadcasts, which other tests' uploads on
    /// this shared server send to everyone.
    private func inbox(_ account: Account) throws -> [[String: Any]] {
        try allInbox(account).filter { ($0["kind"] as? String) != "new_video" }
    }

    private func allInbox(_ account: Account) throws -> [[String: Any]] {
        try firstPage("/v1/notifications", account.token)
    }

    /// The inbox once `settled` holds (broadcasts and follower notifications arrive through a
    /// background lane), or as it is after 10 s.
    private func inbox(_ account: Account, once settled: ([[String: Any]]) -> Bool) throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        _ = try waitUntil { items = try allInbox(account); return settled(items) }
        return items
    }

    private func kinds(_ items: [[String: Any]]) -> [String] { items.compactMap { $0["kind"] as? String } }

    private func settings(_ account: Account, _ values: [String: Bool]) throws {
        assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["notificationSettings": values], token: account.token), 200)
    }

    func testLikeCommentAndFollowAimedAtMeReachMyInbox() throws {
        let owner = try client.signup(), fan = try client.signup()
        let video = try postVideo(owner, rallyId: rallyId, title: "Ouninpohja")
        let videoId = video["id"] as? String ?? ""
        try feedLike(fan, videoId)
        let commentId = try feedComment(fan, videoId, "Flat out!")
        try feedFollow(fan, owner)

        let items = try inbox(owner)
        XCTAssertEqual(kinds(items), ["follow", "comment", "like"], "newest first")
        for item in items {
            XCTAssertNil(item["readAt"] as? String, "unread")
            assertTimestamp(item["createdAt"])
            XCTAssertEqual(child(child(item, "activity"), "fromUser")?["id"] as? String, fan.id)
        }
        XCTAssertEqual(child(items[1], "activity")?["id"] as? String, commentId)
        XCTAssertEqual(child(items[1], "activity")?["content"] as? String, "Flat out!")
        XCTAssertEqual(child(items[1], "video")?["id"] as? String, videoId)
        XCTAssertEqual(child(items[2], "video")?["id"] as? String, videoId)
        XCTAssertTrue(items[0]["video"] is NSNull, "a follow is about no video")
        XCTAssertEqual(try inbox(fan).count, 0, "nothing for one's own actions")
    }

    func testMyActivityOffSilencesWhatIsAimedAtMe() throws {
        let owner = try client.signup(), fan = try client.signup()
        try settings(owner, ["myActivity": false])
        let videoId = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        try feedLike(fan, videoId)
        try feedFollow(fan, owner)
        XCTAssertEqual(try inbox(owner).count, 0)
    }

    func testAFlagIsNeverNotified() throws {
        let owner = try client.signup(), flagger = try client.signup()
        let videoId = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        try feedFlag(flagger, videoId)
        try feedLike(flagger, videoId)
        XCTAssertEqual(kinds(try inbox(owner)), ["like"], "the like, not the flag")
    }

    func testUndoingRemovesTheNotification() throws {
        let owner = try client.signup(), fan = try client.signup()
        let videoId = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        try feedLike(fan, videoId)
        let commentId = try feedComment(fan, videoId)
        try feedFollow(fan, owner)
        XCTAssertEqual(try inbox(owner).count, 3)
        try feedUnlike(fan, videoId)
        assertSuccess(try client.request("DELETE", "/v1/comments/\(commentId)", token: fan.token), 204)
        try feedUnfollow(fan, owner)
        XCTAssertEqual(try inbox(owner).count, 0, "an unlike, a deleted comment and an unfollow take their notifications away")

        // A deleted video takes every notification about it, in every inbox.
        try feedLike(fan, videoId)
        XCTAssertEqual(try inbox(owner).count, 1)
        assertSuccess(try client.request("DELETE", "/v1/videos/\(videoId)", token: owner.token), 204)
        XCTAssertEqual(try inbox(owner).count, 0)
    }

    func testNewVideoReachesEveryoneWhoWantsIt() throws {
        let uploader = try client.signup(), wants = try client.signup(), declines = try client.signup()
        try settings(declines, ["newVideos": false])
        let videoId = try postVideo(uploader, rallyId: rallyId, title: "Kakaristo")["id"] as? String ?? ""
        let isIt: ([String: Any]) -> Bool = { ($0["kind"] as? String) == "new_video" && child($0, "video")?["id"] as? String == videoId }
        let items = try inbox(wants) { $0.contains(where: isIt) }
        let notification = try XCTUnwrap(items.first(where: isIt), "the broadcast arrives")
        XCTAssertTrue(notification["activity"] is NSNull)
        XCTAssertEqual(child(child(notification, "video"), "owner")?["id"] as? String, uploader.id)
        // By then the broadcast has passed everyone created before it.
        XCTAssertFalse(try allInbox(declines).contains(where: isIt), "newVideos off")
        XCTAssertFalse(try allInbox(uploader).contains(where: isIt), "not the uploader")
    }

    func testFollowingActivityReachesFollowersWhoAskForIt() throws {
        let actor = try client.signup(), owner = try client.signup(), follower = try client.signup(), quiet = try client.signup()
        try settings(follower, ["followingActivity": true])
        try feedFollow(follower, actor)
        try feedFollow(quiet, actor)  // followingActivity is off by default
        let videoId = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        try feedLike(actor, videoId)
        let isLike: ([String: Any]) -> Bool = { ($0["kind"] as? String) == "like" }
        let items = try inbox(follower, once: { $0.contains(where: isLike) })
        let like = try XCTUnwrap(items.first(where: isLike))
        XCTAssertEqual(child(child(like, "activity"), "fromUser")?["id"] as? String, actor.id)
        XCTAssertEqual(child(child(like, "activity"), "toUser")?["id"] as? String, owner.id)
        XCTAssertFalse(try inbox(quiet).contains(where: isLike), "followingActivity is off by default")
        XCTAssertEqual(try inbox(owner).filter(isLike).count, 1, "the owner hears it once, as their own")
    }

    func testReadMarksAndPaging() throws {
        let owner = try client.signup()
        let fans = try (0..<5).map { _ in try client.signup() }
        let videoId = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        for fan in fans { try feedLike(fan, videoId) }
        // Other tests' uploads may add broadcasts meanwhile; the likes are what is counted.
        let all = try allPages("/v1/notifications", owner.token, limit: 2).items
        XCTAssertEqual(all.filter { ($0["kind"] as? String) == "like" }.count, 5, "pages of 2 reach every notification once")
        XCTAssertEqual(Set(ids(all)).count, all.count)
        XCTAssertEqual(jsonInt(try getObject("/v1/users/me", owner.token)["unreadNotifications"]), nil, "not a field of User")

        // Marking the third newest reads it and everything older, not the two newer ones.
        let upTo = ids(all)[2]
        assertSuccess(try client.request("POST", "/v1/notifications/read", json: ["upTo": upTo], token: owner.token), 204)
        let after = try allInbox(owner)
        let marked = try XCTUnwrap(after.firstIndex { $0["id"] as? String == upTo })
        for item in after[..<marked] { XCTAssertTrue(item["readAt"] is NSNull, "newer than upTo: unread") }
        for item in after[marked...] { assertTimestamp(item["readAt"]) }

        assertError(try client.request("POST", "/v1/notifications/read", json: ["upTo": "nosuchid00"], token: owner.token),
                    400, "validation_failed", field: "upTo")
        let stranger = try client.signup()
        assertError(try client.request("POST", "/v1/notifications/read", json: ["upTo": upTo], token: stranger.token),
                    400, "validation_failed", field: "upTo", "another user's notification")
        assertError(try client.request("GET", "/v1/notifications"), 401, "unauthorized")
    }

    func testInstallationsRegisterMoveAndDelete() throws {
        let alice = try client.signup(), bob = try client.signup()
        let token = String(repeating: "ab", count: 32)
        let first = assertSuccess(try client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": token, "locale": "es-ES"], token: alice.token), 201)
        XCTAssertEqual(first["platform"] as? String, "ios")
        XCTAssertEqual(first["locale"] as? String, "es-ES")
        let id = first["id"] as? String ?? ""
        let again = assertSuccess(try client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": token], token: alice.token), 200,
                                  "the same device token again, by the same account, is an update")
        XCTAssertEqual(again["id"] as? String, id)
        XCTAssertEqual(again["createdAt"] as? String, first["createdAt"] as? String)
        XCTAssertEqual(again["locale"] as? String, "es-ES", "a missing locale keeps the one known")
        let moved = assertSuccess(try client.request("POST", "/v1/installations", json: ["platform": "ios", "deviceToken": token], token: bob.token), 201)
        let movedId = moved["id"] as? String ?? ""
        assertError(try client.request("DELETE", "/v1/installations/\(id)", token: alice.token), 404, "not_found", "it moved to bob")
        assertError(try client.request("DELETE", "/v1/installations/\(id)", token: bob.token), 404, "not_found", "under a new id")
        assertSuccess(try client.request("DELETE", "/v1/installations/\(movedId)", token: bob.token), 204)
        assertError(try client.request("DELETE", "/v1/installations/\(movedId)", token: bob.token), 404, "not_found")

        let android = assertSuccess(try client.request("POST", "/v1/installations", headers: ["Accept-Language": "es-MX,es;q=0.9"],
                                                        json: ["platform": "android", "deviceToken": "fcm:" + Fake.word() + String(repeating: "x", count: 100)],
                                                        token: alice.token), 201)
        XCTAssertEqual(android["locale"] as? String, "es-MX", "the locale defaults to Accept-Language")

        let bad: [(String, [String: Any], String)] = [
            ("platform", ["platform": "windows", "deviceToken": token], "platform"),
            ("short token", ["platform": "ios", "deviceToken": "abc"], "deviceToken"),
            ("spaces", ["platform": "ios", "deviceToken": String(repeating: "a b ", count: 10)], "deviceToken"),
            // APNs tokens are hex: one that is not is refused here, not pruned at its first push.
            ("iOS not hex", ["platform": "ios", "deviceToken": String(repeating: "xyz-", count: 16)], "deviceToken"),
            ("iOS odd length", ["platform": "ios", "deviceToken": String(repeating: "a", count: 63)], "deviceToken"),
            ("locale", ["platform": "ios", "deviceToken": token, "locale": "<script>"], "locale"),
            ("no token", ["platform": "ios"], "deviceToken"),
        ]
        for (label, body, field) in bad {
            assertError(try client.request("POST", "/v1/installations", json: body, token: alice.token), 400, "validation_failed", field: field, label)
        }
    }

    /// A device token another account registered moves to the caller as a new installation:
    /// nothing of the earlier account's (id, creation time, locale) comes back, and its
    /// platform cannot be switched by anyone (that would make the next push fail and drop the
    /// token: a cheap way to silence someone's phone).
    func testAnotherAccountsDeviceTokenMovesAndStartsAfresh() throws {
        let alice = try client.signup(), bob = try client.signup()
        let token = (0..<32).map { _ in String(format: "%02x", Int.random(in: 0...255)) }.joined()
        let register = { (account: Account, platform: String, locale: String?) in
            var body: [String: Any] = ["platform": platform, "deviceToken": token]
            if let locale { body["locale"] = locale }
            return try self.client.request("POST", "/v1/installations", json: body, token: account.token)
        }
        let first = assertSuccess(try register(alice, "ios", "es-ES"), 201)
        let aliceId = first["id"] as? String ?? ""

        // Another platform for a known token is a conflict, whoever asks, and changes nothing.
        assertError(try register(bob, "android", nil), 409, "conflict", "bob switches alice's device to android")
        assertError(try register(alice, "android", nil), 409, "conflict", "alice herself cannot switch it either")
        let kept = assertSuccess(try register(alice, "ios", nil), 200, "still alice's, still ios")
        XCTAssertEqual(kept["id"] as? String, aliceId)
        XCTAssertEqual(kept["platform"] as? String, "ios")
        XCTAssertEqual(kept["locale"] as? String, "es-ES")

        // Times are milliseconds: wait until the clock (the server's, on this machine) has left
        // alice's creation time, so that a new creation time can be told from hers.
        let aliceCreated = try XCTUnwrap(parseTimestamp(first["createdAt"]), "alice's createdAt: \(first)")
        XCTAssertTrue(waitUntil(timeout: 5, interval: 0.001) { Date().timeIntervalSince(aliceCreated) >= 0.001 }, "the clock moves")
        // 201, not 200: for bob this is a new installation (a new id, his own settings), not an
        // update of one he had; "Re-registering a known device token answers 200" is about the
        // caller's own device. alice's installation is gone, not handed over.
        let moved = assertSuccess(try register(bob, "ios", nil), 201, "the token moves to bob as a new installation")
        let bobId = moved["id"] as? String ?? ""
        XCTAssertNotEqual(bobId, aliceId, "a new id")
        XCTAssertNotEqual(moved["createdAt"] as? String, first["createdAt"] as? String, "a new creation time")
        XCTAssertTrue(moved["locale"] is NSNull, "none of alice's settings: \(moved)")
        XCTAssertEqual(moved["platform"] as? String, "ios")
        assertError(try client.request("DELETE", "/v1/installations/\(aliceId)", token: alice.token), 404, "not_found", "alice no longer has it")
        let rows = try server.withDatabase { try $0.rows("SELECT id, user_id, platform FROM installations WHERE device_token = \(token)") }
        XCTAssertEqual(rows, [[bobId, bob.id, "ios"]], "one installation, bob's: alice's pushes no longer reach the device")

        assertError(try register(bob, "android", nil), 409, "conflict", "nor can bob switch it now")
        XCTAssertEqual(assertSuccess(try register(bob, "ios", "en"), 200)["id"] as? String, bobId, "bob again: an update of his own")

        let lines = server.output.allLines
        let move = lines.filter { $0.contains("\"installation moved\"") }
        XCTAssertEqual(move.count, 1, "the move is logged once")
        XCTAssertTrue(move.first.map { $0.contains(alice.id) && $0.contains(bob.id) && $0.contains("\"info\"") } ?? false,
                      "at info, with both account ids: \(move)")
        XCTAssertFalse(lines.contains { $0.contains(token) }, "the device token is never logged")
    }

    func testHiddenVideosLeaveTheInboxOfOthers() throws {
        let owner = try client.signup(), fan = try client.signup(), bystander = try client.signup()
        try settings(bystander, ["followingActivity": true])
        try feedFollow(bystander, fan)
        let videoId = try postVideo(owner, rallyId: rallyId)["id"] as? String ?? ""
        try feedLike(fan, videoId)
        let isLike: ([String: Any]) -> Bool = { ($0["kind"] as? String) == "like" }
        XCTAssertEqual(try inbox(bystander, once: { $0.contains(where: isLike) }).filter(isLike).count, 1)
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(videoId)/hide", json: ["reason": "test"], token: try moderator().token), 200)
        XCTAssertEqual(try inbox(bystander).filter(isLike).count, 0, "hidden for everyone but its owner and moderators")
        XCTAssertEqual(try inbox(owner).filter(isLike).count, 1, "the owner still sees it")
    }
}
