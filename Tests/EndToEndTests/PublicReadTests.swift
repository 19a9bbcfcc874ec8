import XCTest

/// `--public-read`: anonymous clients GET rallies, videos, users and their lists; feeds,
/// search, moderation, the caller's own account and every write still need a session.
final class PublicReadTests: ServerTestCase {
    override class var serverArguments: [String] { ["--public-read"] }

    func testAnonymousReadsOfRalliesVideosAndUsersAnswer200() throws {
        let owner = try client.signup()
        let fan = try client.signup()
        let (rally, video) = try rallyAndVideo(owner: owner)
        let rallyId = rally["id"] as? String ?? ""
        let videoId = video["id"] as? String ?? ""
        assertSuccess(try client.request("PUT", "/v1/videos/\(videoId)/like", token: fan.token), 200, "like")
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/comments", json: ["content": "Flat out"], token: fan.token), 201, "comment")
        assertSuccess(try client.request("PUT", "/v1/users/\(owner.id)/follow", token: fan.token), 200, "follow")
        let season = String((rally["startDate"] as? String ?? "").prefix(4))

        let reads: [(String, (([String: Any]) -> Bool))] = [
            ("/v1/rallies?season=\(season)", { ids(pageItems($0)).contains(rallyId) }),
            ("/v1/rallies/\(rallyId)", { $0["id"] as? String == rallyId }),
            ("/v1/rallies/\(rallyId)/days/1/videos", { ids(pageItems($0)).contains(videoId) }),
            ("/v1/videos/\(videoId)", { $0["id"] as? String == videoId && $0["likedByMe"] == nil }),
            ("/v1/videos/\(videoId)/likes", { ids(pageItems($0)) == [fan.id] }),
            ("/v1/videos/\(videoId)/comments", { pageItems($0).count == 1 }),
            ("/v1/users/\(owner.username)", { $0["id"] as? String == owner.id && $0["email"] == nil }),
            ("/v1/users/\(owner.id)/videos", { ids(pageItems($0)) == [videoId] }),
            ("/v1/users/\(owner.id)/followers", { ids(pageItems($0)) == [fan.id] }),
            ("/v1/users/\(fan.id)/following", { ids(pageItems($0)) == [owner.id] }),
        ]
        for (path, holds) in reads {
            let result = try client.request("GET", path)
            let body = assertSuccess(result, 200, "anonymous GET \(path)")
            XCTAssertTrue(holds(body), "anonymous GET \(path) shows the data: \(result)")
        }
    }

    func testFeedsSearchModerationOwnAccountAndWritesStayClosed() throws {
        let owner = try client.signup()
        let (rally, video) = try rallyAndVideo(owner: owner)
        let rallyId = rally["id"] as? String ?? ""
        let videoId = video["id"] as? String ?? ""
        let closed: [(String, String, [String: Any]?)] = [
            ("GET", "/v1/feed/home", nil), ("GET", "/v1/feed/news", nil),
            ("GET", "/v1/feed/following", nil), ("GET", "/v1/feed/likes", nil),
            ("GET", "/v1/search/videos?q=stage", nil), ("GET", "/v1/search/users?q=a", nil),
            ("GET", "/v1/users/me", nil),
            ("POST", "/v1/moderation/videos/\(videoId)/hide", [:]),
            ("POST", "/v1/videos", ["youtubeId": Fake.youtubeId(), "title": "Anonymous", "rallyId": rallyId, "day": 1]),
            ("PATCH", "/v1/videos/\(videoId)", ["title": "Renamed"]),
            ("PUT", "/v1/videos/\(videoId)/like", nil),
            ("POST", "/v1/videos/\(videoId)/comments", ["content": "Anonymous"]),
            ("POST", "/v1/videos/\(videoId)/flags", [:]),
            ("PUT", "/v1/users/\(owner.id)/follow", nil),
            ("PUT", "/v1/users/\(owner.id)/role", ["role": "admin"]),
            ("POST", "/v1/rallies", ["name": "Anonymous", "country": "Finland", "startDate": "2030-01-01", "endDate": "2030-01-02"]),
            ("DELETE", "/v1/videos/\(videoId)", nil),
        ]
        for (method, path, body) in closed {
            assertError(try client.request(method, path, json: body), 401, "unauthorized", "anonymous \(method) \(path)")
        }
        XCTAssertEqual(assertSuccess(try client.request("GET", "/v1/videos/\(videoId)"), 200)["title"] as? String,
                       video["title"] as? String, "nothing an anonymous client sent changed the video")
    }
}
