import Foundation
import TestSupport
import XCTest

/// `GET /v1/changes` (API.md "Sync"): a snapshot from nothing pages every rally and video once;
/// since a token, exactly what was created, edited, hidden, restored or deleted, with the op
/// each reader is owed; counters alone are no change; bad tokens and limits are refused.
final class ChangesTests: ServerTestCase {
    func testASnapshotInSmallPagesHoldsEveryRallyAndVideoOnce() throws {
        let owner = try client.signup()
        let rallies = try (0..<2).map { _ in try XCTUnwrap(try createRally()["id"] as? String) }
        var videos: [String] = []
        for index in 0..<7 {
            videos.append(try XCTUnwrap(try postVideo(owner, rallyId: rallies[index % 2], title: "Snapshot \(index)")["id"] as? String))
        }
        var reader = ChangeReader(client: client, sessionToken: owner.token)
        try reader.drain(limit: 3)
        let keys = reader.log.map { $0.split(separator: "/").prefix(2).joined(separator: "/") }
        XCTAssertEqual(keys.count, Set(keys).count, "no object twice in one walk: \(reader.log)")
        for id in rallies { XCTAssertEqual(reader.log.filter { $0 == "rally/\(id)/upsert" }.count, 1, "rally \(id) once") }
        for id in videos { XCTAssertEqual(reader.log.filter { $0 == "video/\(id)/upsert" }.count, 1, "video \(id) once") }
        // The objects are what the /v1 reads answer this caller.
        let served = try getObject("/v1/videos/\(videos[3])", owner.token)
        XCTAssertEqual(reader.video(videos[3])?["title"] as? String, served["title"] as? String)
        XCTAssertEqual(reader.video(videos[3])?["likedByMe"] as? Bool, false)
        assertVideo(reader.video(videos[3]))
        assertRally(reader.objects["rally/\(rallies[0])"])
    }

    func testSinceATokenComeExactlyTheCreatesEditsAndDeletes() throws {
        let owner = try client.signup(), fan = try client.signup()
        let (rally, first) = try rallyAndVideo(owner: owner)
        let rallyId = try XCTUnwrap(rally["id"] as? String), edited = try XCTUnwrap(first["id"] as? String)
        let doomed = try XCTUnwrap(try postVideo(owner, rallyId: rallyId)["id"] as? String)
        var reader = ChangeReader(client: client, sessionToken: fan.token)
        try reader.drain()
        XCTAssertNotNil(reader.video(doomed))

        let created = try XCTUnwrap(try postVideo(owner, rallyId: rallyId, title: "Created")["id"] as? String)
        assertSuccess(try client.request("PATCH", "/v1/videos/\(edited)", json: ["title": "Edited"], token: owner.token), 200)
        XCTAssertEqual(try client.request("DELETE", "/v1/videos/\(doomed)", token: owner.token).status, 204)
        assertSuccess(try client.request("PATCH", "/v1/rallies/\(rallyId)", json: ["name": "Renamed rally"], token: try admin().token), 200)
        let expected = ["video/\(created)/upsert", "video/\(edited)/upsert", "video/\(doomed)/delete", "rally/\(rallyId)/upsert"]
        XCTAssertEqual(try reader.drain(expecting: expected, limit: 2), expected, "oldest change first, each once")
        XCTAssertEqual(reader.video(edited)?["title"] as? String, "Edited")
        XCTAssertNil(reader.video(doomed))
        XCTAssertEqual(reader.objects["rally/\(rallyId)"]?["name"] as? String, "Renamed rally")

        // Likes and comments move counters only: no change; the next change carries them.
        assertSuccess(try client.request("PUT", "/v1/videos/\(created)/like", token: fan.token), 200)
        assertSuccess(try client.request("POST", "/v1/videos/\(created)/comments", json: ["content": "Flat out"], token: fan.token), 201)
        XCTAssertEqual(try reader.drain(), [], "counters alone are not a change")
        assertSuccess(try client.request("PATCH", "/v1/videos/\(created)", json: ["description": "Now with words"], token: owner.token), 200)
        XCTAssertEqual(try reader.drain(expecting: ["video/\(created)/upsert"]), ["video/\(created)/upsert"])
        XCTAssertEqual(jsonInt(reader.video(created)?["likesCount"]), 1)
        XCTAssertEqual(jsonInt(reader.video(created)?["commentsCount"]), 1)
        XCTAssertEqual(reader.video(created)?["likedByMe"] as? Bool, true)
    }

    func testAHiddenVideoIsADeleteForOthersAndAnUpsertForItsOwnerAndModerators() throws {
        let owner = try client.signup(), stranger = try client.signup(), moderator = try moderator()
        let (_, video) = try rallyAndVideo(owner: owner)
        let id = try XCTUnwrap(video["id"] as? String)
        var readers = [owner.token, stranger.token, moderator.token].map { ChangeReader(client: client, sessionToken: $0) }
        for index in readers.indices { try readers[index].drain() }

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(id)/hide", json: [:], token: moderator.token), 200)
        XCTAssertEqual(try readers[0].drain(expecting: ["video/\(id)/upsert"]), ["video/\(id)/upsert"], "the owner")
        XCTAssertEqual(readers[0].video(id)?["hidden"] as? Bool, true)
        XCTAssertEqual(try readers[1].drain(expecting: ["video/\(id)/delete"]), ["video/\(id)/delete"], "another user")
        XCTAssertEqual(try readers[2].drain(expecting: ["video/\(id)/upsert"]), ["video/\(id)/upsert"], "a moderator")
        XCTAssertEqual(readers[2].video(id)?["hidden"] as? Bool, true)

        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(id)/restore", json: [:], token: moderator.token), 200)
        XCTAssertEqual(try readers[1].drain(expecting: ["video/\(id)/upsert"]), ["video/\(id)/upsert"], "restored, back for everyone")
        XCTAssertEqual(readers[1].video(id)?["hidden"] as? Bool, false)

        // A banned owner's videos are out of sight like hidden ones (as every /v1 read has them).
        try readers[2].drain()
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/ban", json: [:], token: moderator.token), 200)
        XCTAssertEqual(try readers[1].drain(expecting: ["video/\(id)/delete"]), ["video/\(id)/delete"], "another user, after the ban")
        XCTAssertEqual(try readers[2].drain(expecting: ["video/\(id)/upsert"]), ["video/\(id)/upsert"], "a moderator still sees it")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/unban", json: [:], token: moderator.token), 200)
        XCTAssertEqual(try readers[1].drain(expecting: ["video/\(id)/upsert"]), ["video/\(id)/upsert"], "after the unban")
    }

    func testTokensAndLimitsAreChecked() throws {
        let one = try client.signup(), other = try client.signup()
        var reader = ChangeReader(client: client, sessionToken: one.token)
        try reader.page(limit: 1)
        let token = try XCTUnwrap(reader.token)
        assertError(try client.request("GET", "/v1/changes?since=\(queryValue(token))", token: other.token), 400, "invalid_cursor",
                    field: "since", "another caller's token")
        assertError(try client.request("GET", "/v1/changes?since=not-a-token", token: one.token), 400, "invalid_cursor", field: "since")
        let tampered = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")
        assertError(try client.request("GET", "/v1/changes?since=\(queryValue(tampered))", token: one.token), 400, "invalid_cursor")
        for limit in ["0", "501", "x"] {
            assertError(try client.request("GET", "/v1/changes?limit=\(limit)", token: one.token), 400, "validation_failed", field: "limit")
        }
        assertSuccess(try client.request("GET", "/v1/changes?limit=500", token: one.token), 200)
        assertError(try client.request("GET", "/v1/changes"), 401, "unauthorized", "a session is needed without --public-read")
    }
}

/// Tombstones are purged after `--changes-retention` by the periodic maintenance; a token
/// behind the purge is 410 `sync_expired`, and starting over without `since` works.
final class ChangesRetentionTests: ServerTestCase {
    override class var serverArguments: [String] { ["--changes-retention", "1s", "--maintenance-interval", "1s"] }

    func testATokenBehindPurgedTombstonesIsGoneAndAFreshSnapshotIsNot() throws {
        let owner = try client.signup()
        let (_, video) = try rallyAndVideo(owner: owner)
        let id = try XCTUnwrap(video["id"] as? String)
        var stale = ChangeReader(client: client, sessionToken: owner.token)
        try stale.drain()
        let staleToken = try XCTUnwrap(stale.token)
        XCTAssertEqual(try client.request("DELETE", "/v1/videos/\(id)", token: owner.token).status, 204)

        // The maintenance runs every second; the tombstone goes once it is a second old.
        let deadline = Date().addingTimeInterval(30)
        var answer = try client.request("GET", "/v1/changes?since=\(queryValue(staleToken))", token: owner.token)
        while answer.status == 200, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.25)
            answer = try client.request("GET", "/v1/changes?since=\(queryValue(staleToken))", token: owner.token)
        }
        assertError(answer, 410, "sync_expired", field: "since", "a token from before the purged tombstone")

        // Starting over: a snapshot without since, paged, then its token keeps working.
        var fresh = ChangeReader(client: client, sessionToken: owner.token)
        try fresh.drain(limit: 1)
        XCTAssertNil(fresh.video(id))
        let later = try XCTUnwrap(try postVideo(owner, rallyId: try XCTUnwrap(video["rallyId"] as? String))["id"] as? String)
        XCTAssertEqual(try fresh.drain(expecting: ["video/\(later)/upsert"]), ["video/\(later)/upsert"])
    }
}
