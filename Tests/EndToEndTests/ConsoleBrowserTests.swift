import Foundation
import TestSupport
import XCTest

/// The moderation console (`/console/`): its static files and headers over HTTP, and the
/// browser tests (Tests/Browser/console_test.py, console_ways_in_test.py) in a real headless
/// Chromium against this server.
final class ConsoleBrowserTests: ServerTestCase {
    /// The package's folder (this file is Tests/EndToEndTests/ConsoleBrowserTests.swift).
    static var packageRoot: URL { StandIn.packageRoot }

    /// Pictures' URLs are absolute on this host, which is not the one the browser loads the
    /// console from (127.0.0.1): the console must load them by their path on its own origin.
    static let publicURL = "https://pacenote.example"

    override class var serverArguments: [String] { ["--public-url", publicURL] }

    static let csp = "default-src 'self'; img-src 'self' https://i.ytimg.com; script-src 'self'; style-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    func testStaticFilesCarryTheirTypesAndSecurityHeadersWithoutASession() throws {
        for (path, type) in [("/console/", "text/html"), ("/console", "text/html"), ("/console/console.js", "text/javascript"), ("/console/console.css", "text/css")] {
            let result = try client.request("GET", path)
            XCTAssertEqual(result.status, 200, path)
            XCTAssertTrue(result.headers["Content-Type"]?.hasPrefix(type) == true, "\(path): \(result.headers["Content-Type"] ?? "none")")
            XCTAssertEqual(result.headers["Content-Security-Policy"], Self.csp, path)
            XCTAssertEqual(result.headers["X-Content-Type-Options"], "nosniff", path)
            XCTAssertEqual(result.headers["Referrer-Policy"], "no-referrer", path)
        }
        let page = String(decoding: try client.request("GET", "/console/").body, as: UTF8.self)
        XCTAssertFalse(page.contains("<style"), "no inline style")
        XCTAssertNil(page.range(of: "<script>"), "no inline script")
        XCTAssertFalse(page.contains("http://") || page.contains("https://"), "nothing loaded from another host")
        assertError(try client.request("GET", "/console/nothing.js"), 404, "not_found")
        let script = String(decoding: try client.request("GET", "/console/console.js").body, as: UTF8.self)
        XCTAssertFalse(script.contains("innerHTML") || script.contains("outerHTML") || script.contains("insertAdjacentHTML"),
                       "the console never assigns HTML")
    }

    /// What the console loads for a user's thumbnail: `/media/avatars/<name>` on its own origin
    /// (the CSP's img-src 'self'), a JPEG without a session and with no cookie, gone (404) once a
    /// moderator removed it through the route the console calls.
    func testAPictureIsServedOnTheConsolesOriginUntilAModeratorRemovesIt() throws {
        let owner = try client.signup()
        let thumbnail = try uploadPicture(owner)
        XCTAssertTrue(thumbnail.hasPrefix(Self.publicURL + "/media/avatars/"), thumbnail)
        let path = String(thumbnail.dropFirst(Self.publicURL.count))
        let served = try client.request("GET", path)
        XCTAssertEqual(served.status, 200, path)
        XCTAssertEqual(served.headers["Content-Type"], "image/jpeg")
        XCTAssertNil(served.headers["Set-Cookie"])
        XCTAssertEqual(Array(served.body.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")

        let moderator = try moderator()
        let removed = try client.request("DELETE", "/v1/moderation/users/\(owner.id)/avatar", json: ["reason": "Not a picture of a person"],
                                         token: moderator.token)
        assertSuccess(removed, 200)
        XCTAssertTrue(removed.object?["avatarThumbnailUrl"] is NSNull, "\(removed)")
        assertError(try client.request("GET", path), 404, "not_found", "a removed picture is not served")
    }

    /// No page of ours may be framed (clickjacking): every console file says so both ways,
    /// `frame-ancestors 'none'` for browsers that read CSP and `X-Frame-Options: DENY` for those
    /// that do not, as the account pages do.
    func testEveryConsoleFileAndAccountPageRefusesFraming() throws {
        for path in ["/console/", "/console", "/console/index.html", "/console/console.js", "/console/console.css",
                     "/account/verify?token=abc", "/account/reset?token=abc", "/account/account.js", "/account/account.css"] {
            let result = try client.request("GET", path)
            XCTAssertEqual(result.status, 200, path)
            XCTAssertEqual(result.headers["X-Frame-Options"], "DENY", path)
            XCTAssertTrue(result.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true, path)
            XCTAssertEqual(result.headers["X-Content-Type-Options"], "nosniff", path)
            XCTAssertEqual(result.headers["Referrer-Policy"], "no-referrer", path)
        }
    }

    func testModeratorHidesAFlaggedVideoInAHeadlessBrowser() throws {
        guard let python = PythonScript.python() else { return }
        let moderator = try moderator()
        let user = try client.signup()
        _ = try uploadPicture(user)  // What an admin sees in the Users view.
        let owner = try client.signup()
        let rally = try createRally()["id"] as? String ?? ""
        let flaggedTitle = "Flying finn \(Fake.word())"
        let hostileTitle = "<img src=x onerror=alert(1)>"
        let flagged = try postVideo(owner, rallyId: rally, title: flaggedTitle)["id"] as? String ?? ""
        let hostile = try postVideo(owner, rallyId: rally, title: hostileTitle)["id"] as? String ?? ""
        // A third owner has a picture; their video is flagged too (the newest, so first of its
        // flag count in the queue). `owner` has none: the console shows a placeholder.
        let pictured = try client.signup()
        let thumbnail = try uploadPicture(pictured)
        let picturedTitle = "Pictured owner \(Fake.word())"
        let picturedVideo = try postVideo(pictured, rallyId: rally, title: picturedTitle)["id"] as? String ?? ""
        for video in [flagged, hostile, picturedVideo] {
            for reason in ["Spectators on the road", "<b>not bold</b>"] {
                assertSuccess(try client.request("POST", "/v1/videos/\(video)/flags", json: ["reason": reason], token: try client.signup().token), 201)
            }
        }
        let artifacts = Self.packageRoot.appendingPathComponent(".build/artifacts/console").path
        var environment = ProcessInfo.processInfo.environment
        environment["SE_AVOID_STATS"] = "true"
        environment["SE_OFFLINE"] = "true"
        environment["CONSOLE_URL"] = "http://127.0.0.1:\(server.port)/console/"
        environment["MODERATOR_LOGIN"] = moderator.username
        environment["MODERATOR_PASSWORD"] = moderator.password
        environment["USER_LOGIN"] = user.username
        environment["USER_PASSWORD"] = user.password
        let admin = try admin()
        environment["ADMIN_LOGIN"] = admin.username
        environment["ADMIN_PASSWORD"] = admin.password
        environment["FLAGGED_TITLE"] = flaggedTitle
        environment["HOSTILE_TITLE"] = hostileTitle
        environment["PICTURED_TITLE"] = picturedTitle
        environment["PICTURED_OWNER"] = pictured.username
        environment["ARTIFACTS"] = artifacts
        let run = try PythonScript.run("Tests/Browser/console_test.py", python: python, environment: environment, timeout: 180)
        XCTAssertEqual(run.status, 0, "console_test.py:\n\(run.log)")

        // What the browser did, as the API sees it: the video is gone for everyone else, the
        // picture too; the log holds both, newest first.
        assertError(try client.request("GET", "/v1/videos/\(flagged)", token: user.token), 404, "not_found", "hidden through the console")
        let entries = try firstPage("/v1/moderation/log", moderator.token, limit: 2)
        XCTAssertEqual(entries.count, 2)
        let removal = entries.first, hide = entries.last
        XCTAssertEqual(removal?["action"] as? String, "remove_picture")
        XCTAssertEqual(removal?["reason"] as? String, "Helmet cam selfie of someone else")
        XCTAssertEqual((removal?["target"] as? [String: Any])?["id"] as? String, pictured.id)
        XCTAssertEqual(hide?["action"] as? String, "hide")
        XCTAssertEqual(hide?["reason"] as? String, "Dangerous spectators")
        XCTAssertTrue(try getObject("/v1/users/\(pictured.id)", user.token)["avatarThumbnailUrl"] is NSNull, "the picture removed through the console")
        assertError(try client.request("GET", String(thumbnail.dropFirst(Self.publicURL.count))), 404, "not_found")
        XCTAssertEqual(try getObject("/v1/videos/\(hostile)", user.token)["title"] as? String, hostileTitle, "the hostile video is untouched")
        for name in ["queue-phone", "queue-laptop", "picture-removed", "log-laptop", "log-phone"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: artifacts + "/\(name).png"), "screenshot \(name)")
        }
    }

    /// An admin's Users view says how each account found signs in (issue 30: "an admin sees
    /// which ways in an account has"), from GET /v1/users/{id}'s `identities` and `hasPassword`:
    /// a password only; Facebook and Twitter without a password; neither (an import without a
    /// usable hash), which only a password reset opens. The identities are written into the
    /// database as an import would (no provider's token is needed for what the console shows).
    func testAnAdminSeesEachAccountsWaysInInTheUsersView() throws {
        guard let python = PythonScript.python() else { return }
        let word = Fake.word("wi")
        let withPassword = try client.signup(displayName: "Password \(word)")
        let withIdentities = try client.signup(displayName: "Social \(word)")
        let withNothing = try client.signup(displayName: "Imported \(word)")
        try server.withDatabase { db in
            for (provider, subject) in [("twitter", "2207\(Int.random(in: 1_000...9_999))"), ("facebook", "10152\(Int.random(in: 1_000...9_999))")] {
                try db.write("""
                    INSERT INTO identities (provider, subject, user_id, created_at)
                    VALUES (\(provider), \(subject), \(withIdentities.id), \(Int64(Date().timeIntervalSince1970 * 1_000)))
                    """)
            }
            // What an account without a password keeps (migrations/*/0019_identities.sql).
            for account in [withIdentities, withNothing] {
                try db.write("UPDATE users SET password_hash = '!' WHERE id = \(account.id)")
            }
        }
        let admin = try admin()
        // What the console reads, as the API answers it.
        for (account, identities, hasPassword) in [(withPassword, [String](), true), (withIdentities, ["facebook", "twitter"], false),
                                                   (withNothing, [], false)] {
            let user = try getObject("/v1/users/\(account.id)", admin.token)
            XCTAssertEqual(user["identities"] as? [String], identities, account.username)
            XCTAssertEqual(user["hasPassword"] as? Bool, hasPassword, account.username)
        }

        var environment = ProcessInfo.processInfo.environment
        environment["SE_AVOID_STATS"] = "true"
        environment["SE_OFFLINE"] = "true"
        environment["CONSOLE_URL"] = "http://127.0.0.1:\(server.port)/console/"
        environment["ADMIN_LOGIN"] = admin.username
        environment["ADMIN_PASSWORD"] = admin.password
        environment["SEARCH"] = word
        environment["PASSWORD_USER"] = withPassword.username
        environment["IDENTITY_USER"] = withIdentities.username
        environment["NO_WAY_USER"] = withNothing.username
        let artifacts = Self.packageRoot.appendingPathComponent(".build/artifacts/console").path
        environment["ARTIFACTS"] = artifacts
        let run = try PythonScript.run("Tests/Browser/console_ways_in_test.py", python: python, environment: environment, timeout: 180)
        XCTAssertEqual(run.status, 0, "console_ways_in_test.py:\n\(run.log)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: artifacts + "/users-ways-in.png"), "screenshot users-ways-in")
    }

    /// PUT /v1/users/me/avatar as `account` with Tests/Support/fixtures/images/landscape.jpg;
    /// answers the new avatarThumbnailUrl.
    private func uploadPicture(_ account: Account, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let image = try Data(contentsOf: Self.packageRoot.appendingPathComponent("Tests/Support/fixtures/images/landscape.jpg"))
        let result = try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"], body: image, token: account.token)
        assertSuccess(result, 200, file: file, line: line)
        guard let thumbnail = result.object?["avatarThumbnailUrl"] as? String else {
            throw UnexpectedResponse(request: "PUT /v1/users/me/avatar", result: result)
        }
        return thumbnail
    }
}
