import Foundation
import Storage
import XCTest
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
        let inbox = app.request("GET", "/v1/notifications", token: owner)
        XCTAssertEqual(inbox.status, 200)
        let kinds = (inbox.body["items"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        XCTAssertEqual(kinds, ["like"], "the last like is in the owner's inbox: \(inbox.body)")
        let claims = try app.application.database.read { c in try c.fetchValue("SELECT COUNT(*) FROM push_recent", as: Int.self) }
        XCTAssertEqual(claims, 0, "nothing is claimed for pushes that never happen")
    }
}
