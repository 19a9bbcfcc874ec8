import Storage
import VideoRegistry
import XCTest
@testable import Auth
@testable import JSON
@testable import SocialAPI

/// The one-statement selections read paths use must present exactly what the batched
/// Presenter functions (write answers) present, for every kind of caller. Activities have no
/// batched presenter of their own (no write answers a list of them): their reference is built
/// here from the batched user and video presenters.
final class PresenterTests: XCTestCase {
    private struct Fixture {
        let app: TestApplication
        /// nil (anonymous), alice, bob (owns most videos), a moderator.
        let callers: [Accounts.Identity?]
    }

    private func makeFixture() throws -> Fixture {
        let app = try TestApplication()
        let admin = app.signUp("the_admin")
        _ = try app.application.accounts.setRole(.admin, idOrUsername: "the_admin")
        let alice = app.signUp("alice"), bob = app.signUp("bob"), carol = app.signUp("carol"), moddy = app.signUp("moddy")
        _ = try app.application.accounts.setRole(.moderator, idOrUsername: "moddy")
        let rally = app.request("POST", "/v1/rallies", json: #"{"name":"Rally","country":"FI","startDate":"2024-08-01","endDate":"2024-08-03"}"#, token: admin)
        let rallyID = try XCTUnwrap(rally.body["id"] as? String)
        var videos: [String] = []
        for (index, token) in [bob, bob, bob, carol, alice].enumerated() {
            let body = #"{"youtubeId":"abcdefghij\#(index)","title":"Stage \#(index) \"quoted\"","rallyId":"\#(rallyID)","day":1}"#
            videos.append(try XCTUnwrap(app.request("POST", "/v1/videos", json: body, token: token).body["id"] as? String))
        }
        XCTAssertEqual(app.request("PUT", "/v1/users/bob/follow", token: alice).status, 200)
        XCTAssertEqual(app.request("PUT", "/v1/users/alice/follow", token: bob).status, 200)
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videos[0])/like", token: alice).status, 200)
        XCTAssertEqual(app.request("PUT", "/v1/videos/\(videos[3])/like", token: bob).status, 200)
        XCTAssertEqual(app.request("POST", "/v1/videos/\(videos[1])/comments", json: #"{"content":"Flat out!"}"#, token: carol).status, 201)
        XCTAssertEqual(app.request("POST", "/v1/videos/\(videos[2])/comments", json: #"{"content":"Hidden soon"}"#, token: alice).status, 201)
        XCTAssertEqual(app.request("POST", "/v1/videos/\(videos[0])/flags", token: carol).status, 201)
        try app.application.database.write { c in _ = try c.execute("UPDATE videos SET hidden = TRUE WHERE id = \(videos[2])") }
        let identities = try [alice, bob, moddy].map { try app.application.accounts.authenticate(token: $0) }
        return Fixture(app: app, callers: [nil] + identities.map(Optional.some))
    }

    private func json(_ items: [some JSONEncodable]) -> String {
        var writer = JSONWriter()
        writer.writeArray(items) { writer, item in writer.value(item) }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func read<Item>(_ selection: Selection<Item>, _ rows: [Row]) throws -> [Item] {
        try rows.map { row in
            var reader = RowReader(row)
            return try selection.read(&reader)
        }
    }

    /// Each activity with its users and its video as the batched presenters show them; a video
    /// the caller may not see is null.
    private func presentBatched(_ list: [Activity], caller: Accounts.Identity?, on c: any DatabaseConnection) throws -> [ActivityJSON] {
        let presenter = Presenter(caller, c)
        let userIDs = Array(Set(list.flatMap { [$0.fromUserID, $0.toUserID] }))
        let users = Dictionary(uniqueKeysWithValues: zip(userIDs, try presenter.users(ids: userIDs)))
        let visible = try c.fetchAll("SELECT \(Video.columns) FROM videos v").map(Video.init(row:)).filter(presenter.viewer.canSee)
        let videos = Dictionary(uniqueKeysWithValues: zip(visible.map(\.id), try presenter.videos(visible)))
        return try list.map { activity in
            ActivityJSON(activity: activity, fromUser: try XCTUnwrap(users[activity.fromUserID]), toUser: try XCTUnwrap(users[activity.toUserID]),
                         video: activity.videoID.flatMap { videos[$0] })
        }
    }

    func testVideoSelectionPresentsWhatThePresenterDoes() throws {
        let fixture = try makeFixture()
        var sawFlags = (liked: false, following: false)
        for caller in fixture.callers {
            try fixture.app.application.database.read { c in
                let videos = try c.fetchAll("SELECT \(Video.columns) FROM videos v ORDER BY v.seq").map(Video.init(row:))
                let expected = json(try Presenter(caller, c).videos(videos))
                let selection = Presenter.videoSelection(for: caller)
                let actual = json(try read(selection, c.fetchAll("SELECT \(selection.columns) FROM videos v \(selection.joins) ORDER BY v.seq")))
                XCTAssertEqual(actual, expected, "caller \(caller?.userID ?? "anonymous")")
                sawFlags.liked = sawFlags.liked || actual.contains(#""likedByMe":true"#)
                sawFlags.following = sawFlags.following || actual.contains(#""isFollowing":true"#)
                XCTAssertEqual(actual.contains("likedByMe"), caller != nil)
            }
        }
        XCTAssertTrue(sawFlags.liked && sawFlags.following, "the fixture exercises both flags")
    }

    func testActivitySelectionPresentsWhatThePresenterDoes() throws {
        let fixture = try makeFixture()
        for caller in fixture.callers {
            try fixture.app.application.database.read { c in
                let activities = try c.fetchAll("SELECT \(Activity.columns) FROM activities a ORDER BY a.seq").map(Activity.init(row:))
                XCTAssertEqual(Set(activities.map(\.kind)), [.like, .comment, .inappropriate, .follow])
                let expected = json(try presentBatched(activities, caller: caller, on: c))
                let selection = Presenter.activitySelection(for: caller)
                let actual = json(try read(selection, c.fetchAll("SELECT \(selection.columns) FROM activities a \(selection.joins) ORDER BY a.seq")))
                XCTAssertEqual(actual, expected, "caller \(caller?.userID ?? "anonymous")")
                // The comment on the hidden video: null for alice and anonymous callers, shown to moderators.
                XCTAssertEqual(actual.contains(#""video":null,"content":"Hidden soon""#), caller?.role.canModerate != true && caller?.userID != fixture.callers[2]?.userID)
            }
        }
    }
}
