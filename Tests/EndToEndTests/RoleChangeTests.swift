import XCTest

/// `PUT /v1/users/{id}/role` through the binary: admins only, and the new role applies to the
/// account's open sessions at once.
final class RoleChangeTests: ServerTestCase {
    func testAnAdminChangesARoleThatAppliesAtOnce() throws {
        let user = try client.signup()
        let owner = try client.signup()
        let (_, video) = try rallyAndVideo(owner: owner)
        let videoId = video["id"] as? String ?? ""
        assertError(try client.request("POST", "/v1/moderation/videos/\(videoId)/hide", token: user.token), 403, "forbidden",
                    "a plain user cannot hide")

        let changed = assertSuccess(try client.request("PUT", "/v1/users/\(user.id)/role", json: ["role": "moderator"], token: try admin().token), 200)
        assertPublicUser(changed, username: user.username)
        XCTAssertEqual(changed["id"] as? String, user.id, "the answer is the user acted on")
        XCTAssertEqual(changed["role"] as? String, "moderator")

        XCTAssertEqual(assertSuccess(try client.me(user.token), 200)["role"] as? String, "moderator", "the open session sees the new role")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(videoId)/hide", token: user.token), 200,
                      "the open session may moderate at once")

        let back = assertSuccess(try client.request("PUT", "/v1/users/\(user.id)/role", json: ["role": "user"], token: try admin().token), 200)
        XCTAssertEqual(back["role"] as? String, "user")
        assertError(try client.request("POST", "/v1/moderation/videos/\(videoId)/restore", token: user.token), 403, "forbidden",
                    "demoted: the open session loses the right at once")
    }

    func testOnlyAnAdminChangesRoles() throws {
        let user = try client.signup()
        let target = try client.signup()
        assertError(try client.request("PUT", "/v1/users/\(target.id)/role", json: ["role": "admin"], token: user.token), 403, "forbidden", "a user")
        assertError(try client.request("PUT", "/v1/users/\(user.id)/role", json: ["role": "admin"], token: user.token), 403, "forbidden", "a user promoting itself")
        assertError(try client.request("PUT", "/v1/users/\(target.id)/role", json: ["role": "admin"], token: try moderator().token), 403, "forbidden", "a moderator")
        XCTAssertEqual(assertSuccess(try client.me(target.token), 200)["role"] as? String, "user", "the refused changes changed nothing")
        assertError(try client.request("PUT", "/v1/users/\(target.id)/role", json: ["role": "king"], token: try admin().token), 400, "validation_failed",
                    field: "role", "an unknown role")
        assertError(try client.request("PUT", "/v1/users/nobody\(Fake.word())/role", json: ["role": "admin"], token: try admin().token), 404, "not_found",
                    "an id that names nobody")
    }
}
