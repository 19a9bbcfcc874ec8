import Foundation
import Storage
import XCTest
@testable import Community
@testable import SocialAPI

/// What the notification hooks write inside a like, in process, on the database `TestDatabase`
/// chooses. (Pushes themselves are end-to-end tests against the stand-ins: PushDeliveryTests.)
final class NotifierTests: XCTestCase {
    /// A server with no push provider and no webhook never pushes, so a like claims nothing
    /// in `push_recent` (the claim is what makes a like, unlike and like again push once),
    /// while the owner's inbox gets the like as always.
    func testALikeOnAServerThatPushesNothingClaimsNoPushButReachesTheInbox() throws {
        let app = try TestApplication()
        let (owner, id) = try app.makeVideo()
        let fan = app.signUp("fan")
        for method in ["PUT", "DELETE", "PUT"] {
            XCTAssertEqual(app.request(method, "/v1/videos/\(id)/like", token: fan).status, 200, method)
        }
        XCTAssertEqual(try kinds(app, owner), ["like"], "the last like is in the owner's inbox")
        let claims = try app.application.database.read { c in try c.fetchValue("SELECT COUNT(*) FROM push_recent", as: Int.self) }
        XCTAssertEqual(claims, 0, "nothing is claimed for pushes that never happen")
    }

    /// Notifications go with what they are about (API.md "Notifications"), though since
    /// migration 0014 no index finds them by video or by actor: a like's, comment's and
    /// follow's go with their activity, a new video's broadcast with its video (a trigger).
    /// What the people notified see: nothing left in their inbox, and badges back to zero.
    func testNotificationsGoWithTheVideoAndTheAccountTheyAreAbout() throws {
        let app = try TestApplication()
        let (owner, videoID) = try app.makeVideo()
        let fan = app.signUp("fan"), watcher = app.signUp("watcher")
        let ownerID = try XCTUnwrap(app.request("GET", "/v1/users/me", token: owner).body["id"] as? String)
        let watcherID = try XCTUnwrap(app.request("GET", "/v1/users/me", token: watcher).body["id"] as? String)
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(app.request("POST", "/v1/videos/\(videoID)/comments", json: #"{"content":"Flat out!"}"#, token: fan).status, 201)
        XCTAssertEqual(app.request("PUT", "/v1/users/\(ownerID)/follow", token: fan).status, 200)
        // The broadcast the notify lane writes for a new video, to one recipient.
        try app.application.database.write { connection in
            _ = try NotificationStore().insert(kind: .newVideo, to: [watcherID], actorID: ownerID, activityID: nil,
                                               videoID: videoID, now: 1, on: connection)
        }
        XCTAssertEqual(try kinds(app, owner), ["follow", "comment", "like"])
        XCTAssertEqual(try kinds(app, watcher), ["new_video"])
        XCTAssertEqual(try badges(app), [ownerID: 3, watcherID: 1])

        XCTAssertEqual(app.request("DELETE", "/v1/videos/\(videoID)", token: owner).status, 204)
        XCTAssertEqual(try kinds(app, owner), ["follow"], "the like and the comment went with the video")
        XCTAssertEqual(try kinds(app, watcher), [], "the broadcast went with the video")
        XCTAssertEqual(try badges(app), [ownerID: 1])

        XCTAssertEqual(app.request("DELETE", "/v1/users/me", json: #"{"password":"password123"}"#, token: fan).status, 204)
        XCTAssertEqual(try kinds(app, owner), [], "the follow went with its author's account")
        XCTAssertEqual(try badges(app), [:])
        let left = try app.application.database.read { c in try c.fetchValue("SELECT COUNT(*) FROM notifications", as: Int.self) }
        XCTAssertEqual(left, 0)
    }

    /// Marking read covers the notification named and everything older, and the badge falls
    /// by what it marked. On SQLite (no index of unread rows since migration 0015) the walk
    /// stops at the newest row already read, so this also covers the case that bound must
    /// not miss: a read notification deleted (an unlike) and its seq given to the next one.
    func testMarkingReadReachesEveryUnreadNotificationUpToTheOneNamed() throws {
        let app = try TestApplication()
        let (owner, videoID) = try app.makeVideo()
        let ownerID = try XCTUnwrap(app.request("GET", "/v1/users/me", token: owner).body["id"] as? String)
        let fans = ["fan1", "fan2", "fan3"].map { app.signUp($0) }
        for fan in fans { XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fan).status, 200) }
        let (ids, _) = try inbox(app, owner)
        XCTAssertEqual(ids.count, 3)
        XCTAssertEqual(try badges(app), [ownerID: 3])

        // The middle one: it and the oldest are read, the newest is not.
        XCTAssertEqual(app.request("POST", "/v1/notifications/read", json: #"{"upTo":"\#(ids[1])"}"#, token: owner).status, 204)
        XCTAssertEqual(try inbox(app, owner).read, [false, true, true])
        XCTAssertEqual(try badges(app), [ownerID: 1])
        XCTAssertEqual(app.request("POST", "/v1/notifications/read", json: #"{"upTo":"\#(ids[0])"}"#, token: owner).status, 204)
        XCTAssertEqual(try inbox(app, owner).read, [true, true, true])
        XCTAssertEqual(try badges(app), [:])

        // The newest (read) goes with its unlike, and the like again is the newest row of the
        // table: SQLite gives it the same seq.
        let seqOf = { (id: String) in
            try app.application.database.read { c in try c.fetchValue("SELECT seq FROM notifications WHERE id = \(id)", as: Int64.self) }
        }
        let readSeq = try seqOf(ids[0])
        XCTAssertEqual(app.request("DELETE", "/v1/videos/\(videoID)/like", token: fans[2]).status, 200)
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fans[2]).status, 200)
        let (again, read) = try inbox(app, owner)
        XCTAssertEqual(read, [false, true, true])
        if app.application.database.dialect == .sqlite { XCTAssertEqual(try seqOf(again[0]), readSeq, "the seq was reused") }
        XCTAssertEqual(try badges(app), [ownerID: 1])
        XCTAssertEqual(app.request("POST", "/v1/notifications/read", json: #"{"upTo":"\#(again[0])"}"#, token: owner).status, 204)
        XCTAssertEqual(try inbox(app, owner).read, [true, true, true])
        XCTAssertEqual(try badges(app), [:])
    }

    /// The inbox, newest first: each notification's id, and whether it was read.
    private func inbox(_ app: TestApplication, _ token: String) throws -> (ids: [String], read: [Bool]) {
        let page = app.request("GET", "/v1/notifications", token: token)
        XCTAssertEqual(page.status, 200)
        let items = page.body["items"] as? [[String: Any]] ?? []
        return (items.compactMap { $0["id"] as? String }, items.map { !($0["readAt"] is NSNull) })
    }

    private func kinds(_ app: TestApplication, _ token: String) throws -> [String] {
        let inbox = app.request("GET", "/v1/notifications", token: token)
        XCTAssertEqual(inbox.status, 200)
        return (inbox.body["items"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
    }

    /// Each user's stored unread count (the push badge), where it is not zero.
    private func badges(_ app: TestApplication) throws -> [String: Int] {
        try app.application.database.read { connection in
            var counts: [String: Int] = [:]
            for row in try connection.fetchAll("SELECT id, unread_notifications FROM users WHERE unread_notifications <> 0") {
                counts[try row.decode(at: 0, as: String.self)] = try row.decode(at: 1, as: Int.self)
            }
            return counts
        }
    }

    /// A like or a comment queues a `notify.following` job only when some follower of its
    /// author may want it: none while nobody who follows the author turned `followingActivity`
    /// on, one once a follower has. With more users wanting it than a request checks itself,
    /// the job is queued and the worker's check decides, as before.
    func testTheFollowingJobIsQueuedOnlyWhenSomeFollowerMayWantIt() throws {
        let app = try TestApplication()
        let (_, videoID) = try app.makeVideo()
        let fan = app.signUp("fan"), pal = app.signUp("pal"), stranger = app.signUp("stranger")
        let fanID = try XCTUnwrap(app.request("GET", "/v1/users/me", token: fan).body["id"] as? String)
        XCTAssertEqual(app.request("PUT", "/v1/users/\(fanID)/follow", token: pal).status, 200)
        let settings = #"{"notificationSettings":{"followingActivity":true}}"#
        XCTAssertEqual(app.request("PATCH", "/v1/users/me", json: settings, token: stranger).status, 200)
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(try followingJobs(app), 0, "the one who wants it does not follow the fan")

        XCTAssertEqual(app.request("PATCH", "/v1/users/me", json: settings, token: pal).status, 200)
        XCTAssertEqual(app.request("POST", "/v1/videos/\(videoID)/comments", json: #"{"content":"Flat out!"}"#, token: fan).status, 201)
        XCTAssertEqual(try followingJobs(app), 1, "now a follower wants it")

        // More users who want it than a request checks, none of them following the fan (made
        // here rather than signed up, past the signup limit).
        try app.application.database.write { connection in
            try connection.execute("UPDATE users SET notify_following_activity = FALSE")
            for n in 0...Notifier.wantingProbed {
                let name = "wanting\(n)"
                try connection.execute("""
                    INSERT INTO users (id, username, username_key, email, email_key, display_name, password_hash, created_at, updated_at, notify_following_activity)
                    VALUES (\(name), \(name), \(name), \(name + "@example.com"), \(name + "@example.com"), \(name), 'x', 0, 0, TRUE)
                    """)
            }
        }
        XCTAssertEqual(app.request("DELETE", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videoID)/like", token: fan).status, 200)
        XCTAssertEqual(try followingJobs(app), 2, "too many want it to check them all in the request")
    }

    private func followingJobs(_ app: TestApplication) throws -> Int {
        try app.application.database.read { c in
            try c.fetchValue("SELECT COUNT(*) FROM outbox WHERE kind = \(FollowersNotice.kind)", as: Int.self) ?? 0
        }
    }
}
