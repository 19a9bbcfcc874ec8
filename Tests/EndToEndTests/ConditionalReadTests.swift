import XCTest

/// API.md "Sync": every 200 JSON GET carries a strong ETag from its body; the same request with
/// `If-None-Match` is 304 without a body until the answer changes; a session's answers are
/// `private, no-cache`. On SQLite and, with PACENOTE_TEST_DATABASE=postgres, on PostgreSQL.
final class ConditionalReadTests: ServerTestCase {
    override class var serverArguments: [String] { ["--public-read"] }

    func testARepeatedReadIs304AndAChangeIs200WithANewTag() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let (rally, video) = try rallyAndVideo(owner: owner)
        let path = "/v1/users/\(owner.id)/videos"

        let first = try client.request("GET", path, token: fan.token)
        XCTAssertEqual(first.status, 200)
        let etag = try XCTUnwrap(first.headers["ETag"], "\(first)")
        XCTAssertTrue(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"), "strong: \(etag)")
        XCTAssertEqual(first.headers["Cache-Control"], "private, no-cache")

        let again = try client.request("GET", path, headers: ["If-None-Match": etag], token: fan.token)
        XCTAssertEqual(again.status, 304, "\(again)")
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(again.headers["ETag"], etag)
        XCTAssertEqual(again.headers["Cache-Control"], "private, no-cache")
        XCTAssertEqual(try client.request("GET", path, headers: ["If-None-Match": "\"stale\", W/\(etag)"], token: fan.token).status, 304,
                       "a list, compared weakly")
        XCTAssertEqual(try client.request("HEAD", path, headers: ["If-None-Match": etag], token: fan.token).status, 304, "HEAD like GET")

        // A change the list shows: a new video. The old tag no longer matches.
        let newer = try postVideo(owner, rallyId: rally["id"] as? String ?? "")
        let changed = try client.request("GET", path, headers: ["If-None-Match": etag], token: fan.token)
        XCTAssertEqual(changed.status, 200)
        XCTAssertNotEqual(changed.headers["ETag"], etag)
        XCTAssertEqual(ids(pageItems(changed.object ?? [:])).first, newer["id"] as? String)

        // A counter is part of the body too: a like changes the video's tag.
        let videoPath = "/v1/videos/\(video["id"] as? String ?? "")"
        let before = try XCTUnwrap(try client.request("GET", videoPath, token: fan.token).headers["ETag"])
        XCTAssertEqual(try client.request("PUT", videoPath + "/like", token: fan.token).status, 200)
        let liked = try client.request("GET", videoPath, headers: ["If-None-Match": before], token: fan.token)
        XCTAssertEqual(liked.status, 200)
        XCTAssertNotEqual(liked.headers["ETag"], before)
        let likedTag = try XCTUnwrap(liked.headers["ETag"])
        XCTAssertEqual(try client.request("GET", videoPath, headers: ["If-None-Match": likedTag], token: fan.token).status, 304)
    }

    /// The tag is the body's, so another caller (whose `likedByMe` differs) never gets a 304 for a copy it was not sent.
    func testTagsFollowTheCallersBodyAndAnonymousReadsAreNoCache() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        XCTAssertEqual(try client.request("PUT", "/v1/videos/\(id)/like", token: fan.token).status, 200)
        let fans = try XCTUnwrap(try client.request("GET", "/v1/videos/\(id)", token: fan.token).headers["ETag"])
        XCTAssertEqual(try client.request("GET", "/v1/videos/\(id)", headers: ["If-None-Match": fans], token: owner.token).status, 200)

        let anonymous = try client.request("GET", "/v1/videos/\(id)")
        XCTAssertEqual(anonymous.status, 200)
        XCTAssertEqual(anonymous.headers["Cache-Control"], "no-cache")
        let tag = try XCTUnwrap(anonymous.headers["ETag"])
        XCTAssertEqual(try client.request("GET", "/v1/videos/\(id)", headers: ["If-None-Match": tag]).status, 304)
        XCTAssertEqual(try client.request("GET", "/v1/videos/\(id)", headers: ["If-None-Match": "*"]).status, 304)
    }

    func testErrorsAndWritesCarryNoTag() throws {
        let fan = try client.signup()
        let missing = try client.request("GET", "/v1/videos/AAAAAAAAAAAAAAAAAAAAAA", headers: ["If-None-Match": "*"], token: fan.token)
        XCTAssertEqual(missing.status, 404)
        XCTAssertNil(missing.headers["ETag"])
        let unauthorized = try client.request("GET", "/v1/feed/home", headers: ["If-None-Match": "*"])
        XCTAssertEqual(unauthorized.status, 401)
        XCTAssertNil(unauthorized.headers["ETag"])
        let created = try client.request("POST", "/v1/rallies", json: ["name": "x"], token: fan.token)
        XCTAssertNil(created.headers["ETag"], "\(created.status)")
    }

    func testAFeedIs304UntilItChanges() throws {
        let fan = try client.signup()
        let first = try client.request("GET", "/v1/feed/likes", token: fan.token)
        XCTAssertEqual(first.status, 200)
        let etag = try XCTUnwrap(first.headers["ETag"])
        XCTAssertEqual(try client.request("GET", "/v1/feed/likes", headers: ["If-None-Match": etag], token: fan.token).status, 304)
        let owner = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        XCTAssertEqual(try client.request("PUT", "/v1/videos/\(id)/like", token: fan.token).status, 200)
        let changed = try client.request("GET", "/v1/feed/likes", headers: ["If-None-Match": etag], token: fan.token)
        XCTAssertEqual(changed.status, 200, "\(changed)")
        XCTAssertNotEqual(changed.headers["ETag"], etag)
    }
}
