import TestSupport
import XCTest

/// Large followings: the server fans a new video out synchronously to at most
/// `--fanout-sync-limit` followers and hands the rest to its background worker (the outbox);
/// likes, comments and follows reach following feeds through the worker only. With a limit
/// of 2 and 6 followers, two followers see a video at once, and everyone sees everything
/// within a bounded wait.
final class FanoutTests: ServerTestCase {
    static let syncLimit = 2
    static let followerCount = 6
    /// Poll every 50 ms, give up after 10 s.
    static let pollInterval = 0.05
    static let patience = 10.0

    override class var serverArguments: [String] { ["--fanout-sync-limit", "\(syncLimit)"] }

    /// A star with 6 followers (who follow nobody else), and a live rally.
    private func star() throws -> (star: Account, followers: [Account], rallyId: String) {
        let star = try client.signup()
        var followers: [Account] = []
        for _ in 0..<Self.followerCount {
            let follower = try client.signup()
            try feedFollow(follower, star)
            followers.append(follower)
        }
        XCTAssertEqual(jsonInt(try getObject("/v1/users/\(star.id)", star.token)["followersCount"]), Self.followerCount)
        return (star, followers, try createRally()["id"] as? String ?? "")
    }

    /// Which of `followers` currently have `matches` true for their `feed` (first page of 100).
    private func seeing(_ followers: [Account], _ feed: Feed, _ matches: @escaping ([[String: Any]]) -> Bool) throws -> [String] {
        var seen: [String] = []
        for follower in followers where matches(try feedFirstPage(feed, follower)) {
            seen.append(follower.username)
        }
        return seen
    }

    /// Asserts that at least `syncLimit` followers see it at once in their home (following
    /// feeds have no synchronous part), then waits (bounded) for all of them.
    private func assertReachesAll(
        _ followers: [Account], _ feed: Feed, _ what: String, file: StaticString = #filePath, line: UInt = #line,
        _ matches: @escaping ([[String: Any]]) -> Bool
    ) throws {
        let atOnce = try seeing(followers, feed, matches)
        let synchronous = feed == .home ? min(Self.syncLimit, followers.count) : 0
        XCTAssertGreaterThanOrEqual(atOnce.count, synchronous,
                                    "\(what): the followers fanned out synchronously see it in the very next request (seen by \(atOnce))",
                                    file: file, line: line)
        let started = Date()
        var last: [String] = atOnce
        let all = try waitUntil(timeout: Self.patience, interval: Self.pollInterval) {
            last = try seeing(followers, feed, matches)
            return last.count == followers.count
        }
        XCTAssertTrue(all, "\(what): all \(followers.count) followers see it within \(Self.patience) s; after "
                      + String(format: "%.1f", Date().timeIntervalSince(started)) + " s only \(last.count) do: \(last)",
                      file: file, line: line)
    }

    func testANewVideoReachesAllSixFollowersHomes() throws {
        let (star, followers, rallyId) = try star()
        let video = try postVideo(star, rallyId: rallyId)["id"] as? String ?? ""
        XCTAssertEqual(try feedIds(.home, star).first, video, "the poster's own home has it at once")
        try assertReachesAll(followers, .home, "a new video of a user with \(Self.followerCount) followers") { ids($0).contains(video) }

        for follower in followers {
            XCTAssertEqual(try feedIds(.home, follower).filter { $0 == video }.count, 1, "exactly once in \(follower.username)'s home")
        }
        let late = try client.signup()
        try feedFollow(late, star)
        XCTAssertEqual(try feedIds(.home, late), [video], "a new follower sees the star's videos at once")

        assertSuccess(try client.request("DELETE", "/v1/videos/\(video)", token: star.token), 204, "delete the video")
        for follower in followers + [late] {
            XCTAssertFalse(try feedIds(.home, follower).contains(video), "the deleted video leaves \(follower.username)'s home")
        }
    }

    func testSeveralVideosReachEveryoneInOrder() throws {
        let (star, followers, rallyId) = try star()
        var made: [String] = []
        for _ in 0..<5 { made.append(try feedVideo(star, rallyId)) }
        let expected = Array(made.reversed())
        try assertReachesAll(followers, .home, "five new videos") { ids($0).contains(made[4]) && Set(ids($0)).isSuperset(of: made) }
        for follower in followers {
            XCTAssertEqual(try feedIds(.home, follower), expected, "\(follower.username)'s home: all five, newest first, once each")
        }
    }

    func testALikeReachesAllSixFollowersFollowingFeeds() throws {
        let (star, followers, rallyId) = try star()
        let creator = try client.signup()
        let video = try postVideo(creator, rallyId: rallyId)["id"] as? String ?? ""
        try feedLike(star, video)
        let key = activityKey("like", from: star, to: creator, video: video)
        try assertReachesAll(followers, .following, "a like by a user with \(Self.followerCount) followers") { $0.map(activityKey).contains(key) }
        for follower in followers {
            XCTAssertEqual(try feedKeys(.following, follower), [key], "exactly the like, once, in \(follower.username)'s following feed")
        }

        let commentId = try feedComment(star, video, "Fanned out")
        try assertReachesAll(followers, .following, "a comment by a user with \(Self.followerCount) followers") { ids($0).contains(commentId) }

        try feedUnlike(star, video)
        for follower in followers {
            XCTAssertFalse(try feedKeys(.following, follower).contains(key), "an undone like leaves \(follower.username)'s following feed")
        }
        assertSuccess(try client.request("DELETE", "/v1/comments/\(commentId)", token: star.token), 204, "delete the comment")
        for follower in followers {
            XCTAssertEqual(try feedKeys(.following, follower), [], "a deleted comment leaves \(follower.username)'s following feed")
        }
        // The feed hides them at once; the worker then deletes their rows.
        func storedRows() throws -> Int {
            try followers.reduce(0) { sum, follower in
                sum + (try server.withDatabase {
                    try $0.int("SELECT COUNT(*) FROM following_timeline t JOIN users u ON u.seq = t.user_seq WHERE u.id = \(follower.id)")
                })
            }
        }
        var left = -1
        XCTAssertTrue(try waitUntil(timeout: Self.patience) { left = try storedRows(); return left == 0 },
                      "the outbox worker removes the undone like's and the deleted comment's timeline rows (\(left) left)")
    }
}
