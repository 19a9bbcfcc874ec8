import XCTest
@testable import SocialAPI

final class AuthMiddlewareTests: XCTestCase {
    func testBearerTokenParsing() {
        XCTAssertEqual(AuthMiddleware.bearerToken("Bearer abc"), "abc")
        XCTAssertEqual(AuthMiddleware.bearerToken("bearer   abc "), "abc")
        XCTAssertNil(AuthMiddleware.bearerToken("Basic abc"))
        XCTAssertNil(AuthMiddleware.bearerToken("Bearer"))
        XCTAssertNil(AuthMiddleware.bearerToken(nil))
    }

    func testEveryV1RouteButSignUpAndLoginNeedsASession() throws {
        let app = try TestApplication()
        for route in app.responder.routes where route.pattern.hasPrefix("/v1/") {
            let path = route.pattern.replacingOccurrences(of: "{id}", with: "x").replacingOccurrences(of: "{idOrUsername}", with: "x")
            let result = app.request(route.method, path)
            if AuthMiddleware.publicRoutes.contains("\(route.method) \(route.pattern)") {
                XCTAssertNotEqual(result.status, 401, "\(route.method) \(route.pattern)")
            } else {
                XCTAssertEqual(result.status, 401, "\(route.method) \(route.pattern) answered without a session")
                XCTAssertEqual((result.body["error"] as? [String: Any])?["code"] as? String, "unauthorized")
            }
        }
    }

    func testAStaleTokenDoesNotBlockLogin() throws {
        let app = try TestApplication()
        _ = app.signUp("stale_user")
        let result = app.request("POST", "/v1/sessions", json: #"{"login":"stale_user","password":"password123"}"#, token: "not-a-real-token")
        XCTAssertEqual(result.status, 201)
        XCTAssertEqual(app.request("GET", "/v1/users/me", token: "not-a-real-token").status, 401)
    }

    func testPublicReadOpensProfilesButNotTheCallersOwnAccount() throws {
        let app = try TestApplication(publicRead: true)
        _ = app.signUp("visible_user")
        let profile = app.request("GET", "/v1/users/visible_user")
        XCTAssertEqual(profile.status, 200)
        XCTAssertNil(profile.body["email"])
        XCTAssertNil(profile.body["isFollowing"], "an anonymous reader follows nobody")
        XCTAssertEqual(app.request("GET", "/v1/users/me").status, 401)
    }

    func testRoleChangesNeedAnAdminAndApplyAtOnce() throws {
        let app = try TestApplication()
        let userToken = app.signUp("plain_user")
        let adminToken = app.signUp("the_admin")
        XCTAssertEqual(app.request("PUT", "/v1/users/plain_user/role", json: #"{"role":"admin"}"#, token: userToken).status, 403)
        _ = try app.application.accounts.setRole(.admin, idOrUsername: "the_admin")
        let promoted = app.request("PUT", "/v1/users/plain_user/role", json: #"{"role":"moderator"}"#, token: adminToken)
        XCTAssertEqual(promoted.status, 200)
        XCTAssertEqual(promoted.body["role"] as? String, "moderator")
        XCTAssertEqual(app.request("GET", "/v1/users/me", token: userToken).body["role"] as? String, "moderator")
        let bad = app.request("PUT", "/v1/users/plain_user/role", json: #"{"role":"king"}"#, token: adminToken)
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual((bad.body["error"] as? [String: Any])?["field"] as? String, "role")
    }
}
