import XCTest
@testable import Community
@testable import SocialAPI

final class AuthMiddlewareTests: XCTestCase {
    func testBearerTokenParsing() {
        XCTAssertEqual(AuthMiddleware.bearerToken("Bearer abc"), "abc")
        XCTAssertEqual(AuthMiddleware.bearerToken("bearer   abc "), "abc")
        XCTAssertNil(AuthMiddleware.bearerToken("Basic abc"))
        XCTAssertNil(AuthMiddleware.bearerToken("Bearer"))
        XCTAssertNil(AuthMiddleware.bearerToken(nil))
    }

    // The contract's lists (API.md "Conventions"), written out here rather than read from the
    // routes' `RoutePolicy`, so a route wrongly declared open fails this test.
    // Parameters are `{}`: their names are the router's choice.
    /// Signup and login (with a password or a provider's token), and the mailed-link endpoints of
    /// API.md "Email verification and password reset" (whoever forgot a password has no
    /// session): the only `/v1` routes open without one.
    static let publicRoutes: Set<String> = [
        "POST /v1/users", "POST /v1/sessions", "POST /v1/sessions/apple", "POST /v1/sessions/google", "POST /v1/sessions/facebook",
        "POST /v1/email-verifications/confirm", "POST /v1/password-resets", "POST /v1/password-resets/confirm",
    ]
    /// With `--public-read`: GETs of rallies, videos, users and their lists (never feeds,
    /// notifications, moderation, search, or the caller's own account).
    static let publicReadRoutes: Set<String> = [
        "GET /v1/rallies", "GET /v1/rallies/{}", "GET /v1/rallies/{}/days/{}/videos",
        "GET /v1/videos/{}", "GET /v1/videos/{}/likes", "GET /v1/videos/{}/comments",
        "GET /v1/users/{}", "GET /v1/users/{}/videos", "GET /v1/users/{}/followers", "GET /v1/users/{}/following",
        "GET /v1/changes",
    ]

    private static func template(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
    }

    /// Every `/v1` route answered anonymously: 401 `unauthorized` unless it is in `open`, where
    /// anything but 401 passes (the handler then refuses the made-up id or empty body itself).
    private func assertOnlyOpen(_ open: Set<String>, publicRead: Bool) throws {
        let app = try TestApplication(publicRead: publicRead)
        var seen: Set<String> = []
        for route in app.responder.routes where route.pattern.hasPrefix("/v1/") {
            let key = "\(route.method) \(Self.template(route.pattern))"
            seen.insert(key)
            let path = route.pattern.replacingOccurrences(of: #"\{[^}]*\}"#, with: "1", options: .regularExpression)
            let result = app.request(route.method, path)
            if open.contains(key) {
                XCTAssertNotEqual(result.status, 401, "\(key) is open (publicRead \(publicRead)): \(result.body)")
            } else {
                XCTAssertEqual(result.status, 401, "\(key) answered without a session (publicRead \(publicRead))")
                XCTAssertEqual((result.body["error"] as? [String: Any])?["code"] as? String, "unauthorized", key)
            }
        }
        XCTAssertEqual(open.subtracting(seen), [], "routes of the contract the router does not serve")
    }

    func testEveryV1RouteButSignUpAndLoginNeedsASession() throws {
        try assertOnlyOpen(Self.publicRoutes, publicRead: false)
    }

    func testPublicReadOpensExactlyTheListedReads() throws {
        try assertOnlyOpen(Self.publicRoutes.union(Self.publicReadRoutes), publicRead: true)
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
