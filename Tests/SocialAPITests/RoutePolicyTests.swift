import HTTP
import XCTest
@testable import SocialAPI

/// Every route's policy (who may call it, the limit it counts against, the pool it runs on) is
/// declared where it is registered, and the router takes no route without one. These tests walk
/// the real application's routes and hold their policies to the tables below, written out here
/// rather than read from the routes, so a route wrongly declared fails them.
///
/// The first three tables are the lists the middleware matched route names against before the
/// routes carried their policy (`AuthMiddleware.publicRoutes` and `.publicReadRoutes`,
/// `RateLimitMiddleware.writeRoutes`), copied as they were: the move changed no route's policy.
final class RoutePolicyTests: XCTestCase {
    /// Open without a session: sign-up, login and the mailed-link endpoints. (Outside `/v1`,
    /// everything is open.)
    static let publicRoutes: Set<String> = [
        "POST /v1/users", "POST /v1/sessions",
        "POST /v1/email-verifications/confirm", "POST /v1/password-resets", "POST /v1/password-resets/confirm",
        // Added with sign-in providers (issue 30): a provider's token is a login.
        "POST /v1/sessions/apple", "POST /v1/sessions/google", "POST /v1/sessions/facebook",
    ]
    /// Open to GET with `--public-read`: rallies, videos, users and their lists.
    static let publicReadRoutes: Set<String> = [
        "GET /v1/users/{idOrUsername}", "GET /v1/users/{id}/videos", "GET /v1/users/{id}/followers",
        "GET /v1/users/{id}/following", "GET /v1/rallies", "GET /v1/rallies/{id}", "GET /v1/rallies/{id}/days/{n}/videos",
        "GET /v1/videos/{id}", "GET /v1/videos/{id}/likes", "GET /v1/videos/{id}/comments",
        // Added with the change log (issue 32): it carries rallies and videos, as their reads do.
        "GET /v1/changes",
    ]
    /// API.md's write limit, per user: videos, likes, comments, flags, follows.
    static let writeRoutes: Set<String> = [
        "POST /v1/videos", "PATCH /v1/videos/{id}", "DELETE /v1/videos/{id}", "PUT /v1/videos/{id}/like",
        "DELETE /v1/videos/{id}/like", "POST /v1/videos/{id}/comments", "DELETE /v1/comments/{id}",
        "POST /v1/videos/{id}/flags", "PUT /v1/users/{id}/follow", "DELETE /v1/users/{id}/follow",
        // Added with profile pictures (issue 29): an upload costs decoding, so it counts.
        "PUT /v1/users/me/avatar",
    ]
    /// The limits per address, which `RateLimitMiddleware` gave these two routes by name.
    /// The provider sign-ins count as logins (one that makes an account also counts as a sign-up,
    /// inside the handler).
    static let addressLimits: [String: RouteLimit] = [
        "POST /v1/users": .signups, "POST /v1/sessions": .logins,
        "POST /v1/sessions/apple": .logins, "POST /v1/sessions/google": .logins, "POST /v1/sessions/facebook": .logins,
    ]
    /// The `/v1` writes deliberately outside the write limit: the caller's own account and
    /// sessions, the mail endpoints (the mail limits count them), rallies and announcements (admins), moderation,
    /// installations and marking notifications read.
    static let unlimitedWrites: Set<String> = [
        "DELETE /v1/sessions/current", "DELETE /v1/sessions", "PATCH /v1/users/me", "PUT /v1/users/me/password",
        "DELETE /v1/users/me", "PUT /v1/users/{id}/role",
        "POST /v1/users/me/email-verification", "POST /v1/email-verifications/confirm", "POST /v1/password-resets",
        "POST /v1/password-resets/confirm",
        "POST /v1/rallies", "PATCH /v1/rallies/{id}", "DELETE /v1/rallies/{id}",
        "POST /v1/announcements", "DELETE /v1/announcements/{id}",
        "POST /v1/moderation/videos/{id}/hide", "POST /v1/moderation/videos/{id}/restore", "POST /v1/moderation/videos/{id}/dismiss",
        "POST /v1/moderation/users/{id}/ban", "POST /v1/moderation/users/{id}/unban", "POST /v1/moderation/outbox/{seq}/retry",
        "POST /v1/installations", "DELETE /v1/installations/{id}", "POST /v1/notifications/read",
        "DELETE /v1/users/me/avatar", "DELETE /v1/moderation/users/{id}/avatar",
        "POST /v1/sessions/apple", "POST /v1/sessions/google", "POST /v1/sessions/facebook",
        "POST /v1/users/me/identities/{provider}", "DELETE /v1/users/me/identities/{provider}",
    ]
    /// The routes that hash a password (bcrypt) and so run on the offload pool; every other
    /// write runs on the blocking pool, every read on its serving thread.
    static let offloadRoutes: Set<String> = [
        "POST /v1/users", "POST /v1/sessions", "PUT /v1/users/me/password", "DELETE /v1/users/me", "POST /v1/password-resets/confirm",
    ]

    /// The GETs that write, and so run on the blocking pool: the data export records that it
    /// started (the daily limit) before it streams (issue 30).
    static let blockingReads: Set<String> = ["GET /v1/users/me/export"]

    /// The routes that decode images, on the media pool with a body limit of their own.
    static let mediaRoutes: [String: Int] = ["PUT /v1/users/me/avatar": 10 * 1024 * 1024]

    private static func routes(of app: TestApplication) -> [(key: String, method: String, pattern: String, policy: RoutePolicy)] {
        (app.responder.routes + app.application.makeMetricsResponder().routes).map {
            (key: "\($0.method) \($0.pattern)", method: $0.method, pattern: $0.pattern, policy: $0.policy)
        }
    }

    /// Walks every route of both responders and fails on one whose policy is not the one the old
    /// lists gave it: its access, its limit and its pool.
    func testEveryRouteHasThePolicyTheOldListsGaveIt() throws {
        let app = try TestApplication()
        let routes = Self.routes(of: app)
        for route in routes {
            let access: RoutePolicy.Access =
                !route.pattern.hasPrefix("/v1/") || Self.publicRoutes.contains(route.key) ? .public
                : Self.publicReadRoutes.contains(route.key) ? .publicRead : .session
            let limit = Self.addressLimits[route.key] ?? (Self.writeRoutes.contains(route.key) ? .writes : nil)
            let pool: WorkerPool? = Self.offloadRoutes.contains(route.key) ? .offload
                : Self.mediaRoutes[route.key] != nil ? .media
                : route.method == "GET" && !Self.blockingReads.contains(route.key) ? nil : .blocking
            XCTAssertEqual(route.policy, RoutePolicy(access: access, limit: limit, pool: pool, maxBodyBytes: Self.mediaRoutes[route.key]), route.key)
        }
        let served = Set(routes.map(\.key))
        let listed = Self.publicRoutes.union(Self.publicReadRoutes).union(Self.writeRoutes).union(Self.offloadRoutes).union(Self.mediaRoutes.keys)
            .union(Self.blockingReads)
        XCTAssertEqual(listed.subtracting(served), [], "listed routes the router does not serve")
    }

    /// Walks every `/v1` write and fails on one not said here to be inside or outside the write
    /// limit: a new write route fails until someone decides, instead of silently going unlimited.
    func testEveryV1WriteIsDeclaredInsideOrOutsideTheWriteLimit() throws {
        let app = try TestApplication()
        let decided = Self.writeRoutes.union(Self.unlimitedWrites).union(Self.addressLimits.keys)
        let writes = Self.routes(of: app).filter { $0.pattern.hasPrefix("/v1/") && $0.method != "GET" }
        for route in writes {
            XCTAssertTrue(decided.contains(route.key), "\(route.key): add it to writeRoutes or unlimitedWrites, with the policy it declares")
        }
        XCTAssertEqual(Self.unlimitedWrites.subtracting(writes.map(\.key)), [], "unlimitedWrites lists routes the router does not serve")
        XCTAssertTrue(Self.writeRoutes.isDisjoint(with: Self.unlimitedWrites))
    }
}
