import XCTest

/// API.md "Moderation": who may do what to whom, the queue, and the log entry each action leaves.
final class ModerationTests: ServerTestCase {
    /// A video by a fresh owner, flagged by `flaggers` fresh users (reasons "reason 1", ...).
    private func flaggedVideo(flaggers: Int, title: String? = nil) throws -> (owner: Account, video: String, flaggers: [Account]) {
        let owner = try client.signup()
        let video = try rallyAndVideo(owner: owner, title: title).video["id"] as? String ?? ""
        var accounts: [Account] = []
        for number in 0..<flaggers {
            let flagger = try client.signup()
            assertSuccess(try client.request("POST", "/v1/videos/\(video)/flags", json: ["reason": "reason \(number + 1)"], token: flagger.token), 201)
            accounts.append(flagger)
        }
        return (owner, video, accounts)
    }

    private func latestLog(_ token: String) throws -> [String: Any] {
        try firstPage("/v1/moderation/log", token, limit: 1).first ?? [:]
    }

    private func assertLogged(_ entry: [String: Any], action: String, actor: String?, targetType: String, targetId: String, reason: String?,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(entry["action"] as? String, action, "\(entry)", file: file, line: line)
        if let actor {
            XCTAssertEqual(child(entry, "actor")?["id"] as? String, actor, "the actor is the moderator: \(entry)", file: file, line: line)
        } else {
            XCTAssertTrue(entry["actor"] is NSNull, "no actor for an automatic action: \(entry)", file: file, line: line)
        }
        XCTAssertEqual(child(entry, "target")?["type"] as? String, targetType, file: file, line: line)
        XCTAssertEqual(child(entry, "target")?["id"] as? String, targetId, file: file, line: line)
        if let reason { XCTAssertEqual(entry["reason"] as? String, reason, file: file, line: line) }
        assertTimestamp(entry["createdAt"], near: Date(), "createdAt", file: file, line: line)
        XCTAssertNotNil(entry["id"] as? String, file: file, line: line)
    }

    func testQueueListsFlaggedVideosMostFlaggedFirstWithReasonsAndFlaggers() throws {
        let moderator = try moderator()
        let two = try flaggedVideo(flaggers: 2)
        let three = try flaggedVideo(flaggers: 3)
        let items = try allPages("/v1/moderation/queue", moderator.token, limit: 1).items
        let ids = items.compactMap { child($0, "video")?["id"] as? String }
        guard let at3 = ids.firstIndex(of: three.video), let at2 = ids.firstIndex(of: two.video) else {
            return XCTFail("both flagged videos are in the queue: \(ids)")
        }
        XCTAssertLessThan(at3, at2, "the most flagged first")
        XCTAssertEqual(Set(ids).count, ids.count, "paging one by one never repeats an item")
        let item = items[at3]
        assertVideo(child(item, "video"))
        XCTAssertEqual(jsonInt(item["flagsCount"]), 3)
        XCTAssertEqual(Set(item["reasons"] as? [String] ?? []), ["reason 1", "reason 2", "reason 3"])
        assertTimestamp(item["lastFlaggedAt"], near: Date(), "lastFlaggedAt")
        let flaggers = (item["flags"] as? [[String: Any]] ?? []).compactMap { child($0, "user")?["id"] as? String }
        XCTAssertEqual(Set(flaggers), Set(three.flaggers.map(\.id)), "who raised each flag")
    }

    func testPermissionMatrix() throws {
        let admin = try admin()
        let moderator = try moderator()
        let otherModerator = try makeStaff(role: "moderator")
        let user = try client.signup()
        let flagged = try flaggedVideo(flaggers: 1)
        let v = flagged.video

        // Reading the queue, the log and the dead letters.
        for (path, allowed) in [("/v1/moderation/queue", [moderator, admin]), ("/v1/moderation/log", [moderator, admin]),
                                ("/v1/moderation/outbox/dead", [admin])] {
            assertError(try client.request("GET", path), 401, "unauthorized", path)
            for account in [user, moderator, admin] {
                let result = try client.request("GET", path, token: account.token)
                if allowed.contains(where: { $0.id == account.id }) {
                    assertSuccess(result, 200, "\(path) as \(account.user["role"] ?? "")")
                } else {
                    assertError(result, 403, "forbidden", "\(path) as \(account.user["role"] ?? "")")
                }
            }
        }

        // Actions on a video: users are refused, moderators and admins answered with the video.
        for action in ["hide", "restore", "dismiss"] {
            assertError(try client.request("POST", "/v1/moderation/videos/\(v)/\(action)", json: ["reason": "x"], token: user.token), 403, "forbidden", action)
            for staff in [moderator, admin] {
                let video = assertSuccess(try client.request("POST", "/v1/moderation/videos/\(v)/\(action)", json: ["reason": "x"], token: staff.token), 200, action)
                XCTAssertEqual(video["id"] as? String, v)
                XCTAssertEqual(video["hidden"] as? Bool, action == "hide")
            }
        }
        assertError(try client.request("POST", "/v1/moderation/videos/nope/hide", json: [String: Any](), token: moderator.token), 404, "not_found")

        // Bans: a moderator bans users only; an admin users and moderators; nobody an admin or themselves.
        let cases: [(actor: Account, target: Account, allowed: Bool)] = [
            (user, try client.signup(), false), (user, moderator, false), (user, admin, false),
            (moderator, try client.signup(), true), (moderator, otherModerator, false), (moderator, admin, false), (moderator, moderator, false),
            (admin, try client.signup(), true), (admin, otherModerator, true), (admin, admin, false),
        ]
        for (actor, target, allowed) in cases {
            let label = "\(actor.user["role"] ?? "") bans \(target.user["role"] ?? "")"
            let ban = try client.request("POST", "/v1/moderation/users/\(target.id)/ban", json: ["reason": "matrix"], token: actor.token)
            if allowed {
                XCTAssertEqual(assertSuccess(ban, 200, label)["id"] as? String, target.id)
                assertSuccess(try client.request("POST", "/v1/moderation/users/\(target.id)/unban", json: [String: Any](), token: actor.token), 200, "un" + label)
            } else {
                assertError(ban, 403, "forbidden", label)
                assertError(try client.request("POST", "/v1/moderation/users/\(target.id)/unban", json: [String: Any](), token: actor.token), 403, "forbidden", "un" + label)
            }
        }
        assertError(try client.request("POST", "/v1/moderation/users/nobody-here/ban", json: [String: Any](), token: moderator.token), 404, "not_found")

        // Roles: admins only, never their own.
        let target = try client.signup()
        for actor in [user, moderator] {
            assertError(try client.request("PUT", "/v1/users/\(target.id)/role", json: ["role": "moderator"], token: actor.token), 403, "forbidden")
        }
        let promoted = assertSuccess(try client.request("PUT", "/v1/users/\(target.id)/role", json: ["role": "moderator"], token: admin.token), 200)
        XCTAssertEqual(promoted["role"] as? String, "moderator")
        assertError(try client.request("PUT", "/v1/users/\(admin.id)/role", json: ["role": "user"], token: admin.token), 403, "forbidden", "own role")
        assertError(try client.request("PUT", "/v1/users/\(target.id)/role", json: ["role": "king"], token: admin.token), 400, "validation_failed", field: "role")
    }

    func testEachActionLeavesALogEntry() throws {
        let admin = try admin()
        let moderator = try moderator()
        let flagged = try flaggedVideo(flaggers: 2)
        let v = flagged.video

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(v)/hide", json: ["reason": "  dangerous  "], token: moderator.token), 200)
        assertLogged(try latestLog(moderator.token), action: "hide", actor: moderator.id, targetType: "video", targetId: v, reason: "dangerous")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(v)/restore", json: ["reason": "fine after all"], token: moderator.token), 200)
        assertLogged(try latestLog(moderator.token), action: "restore", actor: moderator.id, targetType: "video", targetId: v, reason: "fine after all")

        let dismissed = assertSuccess(try client.request("POST", "/v1/moderation/videos/\(v)/dismiss", json: ["reason": "not a problem"], token: moderator.token), 200)
        XCTAssertEqual(dismissed["id"] as? String, v)
        assertLogged(try latestLog(admin.token), action: "dismiss", actor: moderator.id, targetType: "video", targetId: v, reason: "not a problem")
        XCTAssertEqual(try StoredCounters.activities(server, type: 3, videoId: v), 0, "dismiss clears the flags")
        let queue = try allPages("/v1/moderation/queue", moderator.token, limit: 100).items
        XCTAssertFalse(queue.contains { child($0, "video")?["id"] as? String == v }, "a dismissed video leaves the queue")

        let commenter = try client.signup()
        let comment = assertSuccess(try client.request("POST", "/v1/videos/\(v)/comments", json: ["content": "spam spam"], token: commenter.token), 201)
        let commentId = comment["id"] as? String ?? ""
        assertSuccess(try client.request("DELETE", "/v1/comments/\(commentId)", json: ["reason": "spam"], token: moderator.token), 204)
        assertLogged(try latestLog(moderator.token), action: "delete_comment", actor: moderator.id, targetType: "comment", targetId: commentId, reason: "spam")

        let banned = try client.signup()
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(banned.id)/ban", json: ["reason": "abuse"], token: moderator.token), 200)
        assertLogged(try latestLog(moderator.token), action: "ban", actor: moderator.id, targetType: "user", targetId: banned.id, reason: "abuse")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(banned.id)/unban", json: ["reason": "appeal"], token: admin.token), 200)
        assertLogged(try latestLog(moderator.token), action: "unban", actor: admin.id, targetType: "user", targetId: banned.id, reason: "appeal")

        assertSuccess(try client.request("PUT", "/v1/users/\(banned.id)/role", json: ["role": "moderator", "reason": "trusted"], token: admin.token), 200)
        assertLogged(try latestLog(moderator.token), action: "set_role", actor: admin.id, targetType: "user", targetId: banned.id, reason: "user -> moderator: trusted")

        assertSuccess(try client.request("DELETE", "/v1/videos/\(v)", json: ["reason": "gone"], token: moderator.token), 204)
        assertLogged(try latestLog(moderator.token), action: "delete_video", actor: moderator.id, targetType: "video", targetId: v, reason: "gone")

        // An owner deleting their own video is not moderation: no entry.
        let mine = try rallyAndVideo(owner: commenter).video["id"] as? String ?? ""
        assertSuccess(try client.request("DELETE", "/v1/videos/\(mine)", token: commenter.token), 204)
        XCTAssertEqual(child(try latestLog(moderator.token), "target")?["id"] as? String, v)

        // The log pages newest first without repeats.
        let log = try allPages("/v1/moderation/log", admin.token, limit: 2).items
        let times = log.compactMap { $0["createdAt"] as? String }
        XCTAssertEqual(times, times.sorted(by: >), "newest first")
        XCTAssertEqual(Set(log.compactMap { $0["id"] as? String }).count, log.count)
        XCTAssertGreaterThanOrEqual(log.count, 8)
        StoredCounters.assertAllExact(server)
    }

    func testHiddenVideoIsNotFoundToOthers() throws {
        let moderator = try moderator()
        let flagged = try flaggedVideo(flaggers: 1)
        let stranger = try client.signup()
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(flagged.video)/hide", json: ["reason": "r"], token: moderator.token), 200)
        assertError(try client.request("GET", "/v1/videos/\(flagged.video)", token: stranger.token), 404, "not_found")
        XCTAssertEqual(try getObject("/v1/videos/\(flagged.video)", flagged.owner.token)["hidden"] as? Bool, true, "the owner still sees it")
        let queued = try allPages("/v1/moderation/queue", moderator.token, limit: 100).items.first { child($0, "video")?["id"] as? String == flagged.video }
        XCTAssertEqual(child(queued, "video")?["hidden"] as? Bool, true, "a hidden video stays in the queue until dismissed or deleted")
    }

    func testActionsRefuseBadInput() throws {
        let moderator = try moderator()
        let flagged = try flaggedVideo(flaggers: 1)
        assertError(try client.request("POST", "/v1/moderation/videos/\(flagged.video)/hide", json: ["reason": String(repeating: "r", count: 501)], token: moderator.token),
                    400, "validation_failed", field: "reason")
        assertError(try client.request("POST", "/v1/moderation/videos/\(flagged.video)/hide", json: ["reason": 5], token: moderator.token), 400, "validation_failed", field: "reason")
        assertError(try client.request("POST", "/v1/moderation/videos/\(flagged.video)/hide", body: Data("{".utf8), token: moderator.token), 400, "bad_request")
        assertError(try client.request("GET", "/v1/moderation/queue?limit=0", token: moderator.token), 400, "validation_failed", field: "limit")
        assertError(try client.request("GET", "/v1/moderation/log?cursor=abc", token: moderator.token), 400, "invalid_cursor")
        assertError(try client.request("POST", "/v1/moderation/outbox/12345678/retry", token: try admin().token), 404, "not_found")
        assertError(try client.request("POST", "/v1/moderation/outbox/abc/retry", token: try admin().token), 404, "not_found")
    }
}

/// Automatic hiding at `--auto-hide-flags` distinct flags, logged with no actor.
final class AutoHideTests: ServerTestCase {
    override class var serverArguments: [String] { ["--auto-hide-flags", "3"] }

    func testThirdDistinctFlagHidesTheVideoAndLogsIt() throws {
        let owner = try client.signup()
        let video = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let stranger = try client.signup()
        for number in 1...2 {
            assertSuccess(try client.request("POST", "/v1/videos/\(video)/flags", json: ["reason": "r\(number)"], token: try client.signup().token), 201)
        }
        XCTAssertEqual(try getObject("/v1/videos/\(video)", stranger.token)["hidden"] as? Bool, false, "two flags: still shown")
        assertSuccess(try client.request("POST", "/v1/videos/\(video)/flags", json: ["reason": "r3"], token: try client.signup().token), 201)
        assertError(try client.request("GET", "/v1/videos/\(video)", token: stranger.token), 404, "not_found", "hidden at the third flag")
        let moderator = try moderator()
        let entry = try firstPage("/v1/moderation/log", moderator.token, limit: 1).first ?? [:]
        XCTAssertEqual(entry["action"] as? String, "auto_hide", "\(entry)")
        XCTAssertTrue(entry["actor"] is NSNull, "automatic: no actor")
        XCTAssertEqual(child(entry, "target")?["id"] as? String, video)
        XCTAssertEqual(child(entry, "target")?["type"] as? String, "video")
        XCTAssertEqual(try StoredCounters.stored(server, "videos", "hidden", id: video), 1)
    }
}
