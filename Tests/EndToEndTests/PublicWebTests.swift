import Foundation
import XCTest

/// `serve --public-web` (API.md "Public web") against the real binary: the pages' statuses and
/// headers, visibility as an anonymous API reader's (hidden, banned, deleted, unknown: 404),
/// moderation followed at once, ETags and 304, the language, `shareUrl`, and the app-link
/// files. With PACENOTE_TEST_DATABASE=postgres the same tests run on PostgreSQL.
final class PublicWebTests: ServerTestCase {
    static let publicURL = "https://pacenote.example"
    static let appID = "ABCDE12345.com.example.pacenote"
    static let fingerprint = (0..<32).map { String(format: "%02X", ($0 * 37 + 11) % 256) }.joined(separator: ":")
    static let csp = "default-src 'none'; style-src 'self'; img-src 'self' https://i.ytimg.com https://pacenote.example; "
        + "frame-src https://www.youtube-nocookie.com; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    override class var serverArguments: [String] {
        ["--public-web", "--public-url", publicURL + "/", "--apple-app-id", appID,
         "--android-package", "com.example.pacenote", "--android-cert-sha256", fingerprint.lowercased()]
    }

    /// A rally, a video on its day 1 with a description, a comment and a like.
    private func content(title: String? = nil) throws -> (owner: Account, rally: String, video: String, youtube: String) {
        let owner = try client.signup(displayName: "Owner \(Fake.word())")
        let rally = try createRally()["id"] as? String ?? ""
        let youtube = Fake.youtubeId()
        let video = try postVideo(owner, rallyId: rally, title: title, youtubeId: youtube, description: "Flat out over the crest")["id"] as? String ?? ""
        let fan = try client.signup()
        assertSuccess(try client.request("POST", "/v1/videos/\(video)/comments", json: ["content": "Mega"], token: fan.token), 201)
        assertSuccess(try client.request("PUT", "/v1/videos/\(video)/like", token: fan.token), 200)
        return (owner, rally, video, youtube)
    }

    private func assertPage(_ result: HTTPResult, status: Int = 200, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, status, "\(context): \(result)", file: file, line: line)
        XCTAssertEqual(result.headers["Content-Type"], "text/html; charset=utf-8", context, file: file, line: line)
        XCTAssertEqual(result.headers["Content-Security-Policy"], Self.csp, context, file: file, line: line)
        XCTAssertEqual(result.headers["X-Content-Type-Options"], "nosniff", context, file: file, line: line)
        XCTAssertEqual(result.headers["X-Frame-Options"], "DENY", context, file: file, line: line)
        XCTAssertEqual(result.headers["Referrer-Policy"], "strict-origin-when-cross-origin", context, file: file, line: line)
        XCTAssertEqual(result.headers["Vary"], "Accept-Language", context, file: file, line: line)
        XCTAssertNil(result.headers["Set-Cookie"], context, file: file, line: line)
        XCTAssertFalse(result.text.contains("<script"), "\(context): no script", file: file, line: line)
        XCTAssertTrue(result.text.hasPrefix("<!DOCTYPE html>"), context, file: file, line: line)
        if status == 200 {
            XCTAssertEqual(result.headers["Cache-Control"], "public, max-age=60", context, file: file, line: line)
            XCTAssertTrue(result.headers["ETag"]?.hasPrefix("\"") == true, "\(context): a strong ETag", file: file, line: line)
        }
    }

    func testEachPageAnswersHTMLWithItsHeadersAndContent() throws {
        let (owner, rally, video, youtube) = try content(title: "Ouninpohja jump")
        let videoPage = try client.request("GET", "/v/\(video)")
        assertPage(videoPage, "video page")
        for expected in ["Ouninpohja jump", "https://www.youtube-nocookie.com/embed/\(youtube)", "Mega", "1 like", "1 comment",
                         "Flat out over the crest", "href=\"/u/\(owner.username)\"", "href=\"/r/\(rally)/1\"", "<html lang=\"en\">",
                         "property=\"og:video\" content=\"https://www.youtube-nocookie.com/embed/\(youtube)\""] {
            XCTAssertTrue(videoPage.text.contains(expected), "the video page shows \(expected)")
        }
        let day = try client.request("GET", "/r/\(rally)/1")
        assertPage(day, "day page")
        XCTAssertTrue(day.text.contains("href=\"/v/\(video)\""), "the day lists the video")
        XCTAssertTrue(day.text.contains("Most liked") && day.text.contains("Most recent"))
        let rallyPage = try client.request("GET", "/r/\(rally)")
        assertPage(rallyPage, "rally page")
        XCTAssertTrue(rallyPage.text.contains("href=\"/r/\(rally)/3\""), "the rally links its days")
        XCTAssertTrue(rallyPage.text.contains("https://i.ytimg.com/vi/\(youtube)/hqdefault.jpg"), "its first video's thumbnail previews it")
        for path in ["/u/\(owner.username)", "/u/\(owner.username.uppercased())", "/u/\(owner.id)"] {
            let user = try client.request("GET", path)
            assertPage(user, path)
            XCTAssertTrue(user.text.contains("href=\"/v/\(video)\""), "\(path) lists the video")
        }
        let head = try client.request("HEAD", "/v/\(video)")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["ETag"], videoPage.headers["ETag"], "HEAD has GET's tag")

        // The stylesheet the pages link, served by the binary.
        let link = try XCTUnwrap(videoPage.text.range(of: "href=\"/web/site-").map { videoPage.text[$0.lowerBound...] })
        let path = String(link.dropFirst("href=\"".count).prefix { $0 != "\"" })
        let css = try client.request("GET", path)
        XCTAssertEqual(css.status, 200, path)
        XCTAssertEqual(css.headers["Content-Type"], "text/css; charset=utf-8")
        XCTAssertTrue(css.text.contains("overflow-wrap: anywhere"))
        XCTAssertEqual(try client.request("GET", "/web/card.png").headers["Content-Type"], "image/png")
        XCTAssertEqual(try client.request("GET", "/web/nothing.css").status, 404)
    }

    func testASessionChangesNothingOnAPage() throws {
        let (owner, _, video, _) = try content()
        let anonymous = try client.request("GET", "/v/\(video)")
        let signedIn = try client.request("GET", "/v/\(video)", token: owner.token)
        XCTAssertEqual(signedIn.status, 200)
        XCTAssertEqual(signedIn.headers["ETag"], anonymous.headers["ETag"], "the same page for everyone")
        XCTAssertEqual(signedIn.headers["Cache-Control"], "public, max-age=60")
        XCTAssertEqual(try client.request("GET", "/v/\(video)", headers: ["Authorization": "Bearer not-a-token"]).status, 200,
                       "a stale token does not stop a page")
    }

    func testSpanishByAcceptLanguageWithQValues() throws {
        let (_, _, video, _) = try content()
        let spanish = try client.request("GET", "/v/\(video)", headers: ["Accept-Language": "fr;q=0.9, es-MX;q=0.8, en;q=0.5"])
        assertPage(spanish, "Spanish video page")
        XCTAssertTrue(spanish.text.contains("<html lang=\"es\">"))
        XCTAssertTrue(spanish.text.contains("Comentarios"))
        XCTAssertEqual(spanish.headers["Content-Language"], "es")
        let english = try client.request("GET", "/v/\(video)", headers: ["Accept-Language": "es;q=0.1, en"])
        XCTAssertTrue(english.text.contains("<html lang=\"en\">"))
        XCTAssertNotEqual(english.headers["ETag"], spanish.headers["ETag"], "each language its own tag (Vary: Accept-Language)")
    }

    func testETagGivesA304UntilThePageChanges() throws {
        let (_, _, video, _) = try content()
        let first = try client.request("GET", "/v/\(video)")
        let etag = try XCTUnwrap(first.headers["ETag"])
        let again = try client.request("GET", "/v/\(video)", headers: ["If-None-Match": etag])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(again.headers["ETag"], etag)
        XCTAssertEqual(again.headers["Cache-Control"], "public, max-age=60")
        let fan = try client.signup()
        assertSuccess(try client.request("PUT", "/v1/videos/\(video)/like", token: fan.token), 200)
        let changed = try client.request("GET", "/v/\(video)", headers: ["If-None-Match": etag])
        XCTAssertEqual(changed.status, 200, "a new like changes the page")
        XCTAssertNotEqual(changed.headers["ETag"], etag)
        XCTAssertTrue(changed.text.contains("2 likes"))
    }

    func testHiddenBannedDeletedAndUnknownAre404Pages() throws {
        let moderator = try moderator()
        // Hidden.
        let (_, rally, hidden, _) = try content()
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(hidden)/hide", json: ["reason": "spectators"], token: moderator.token), 200)
        // Banned, with a video.
        let banned = try client.signup()
        let bannedVideo = try postVideo(banned, rallyId: rally)["id"] as? String ?? ""
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(banned.id)/ban", json: ["reason": "abuse"], token: moderator.token), 200)
        // Deleted, with a video.
        let leaver = try client.signup()
        let leaverVideo = try postVideo(leaver, rallyId: rally)["id"] as? String ?? ""
        assertSuccess(try client.request("DELETE", "/v1/users/me", json: ["password": leaver.password], token: leaver.token), 204)

        for path in ["/v/\(hidden)", "/v/\(bannedVideo)", "/u/\(banned.username)", "/u/\(banned.id)", "/v/\(leaverVideo)", "/u/\(leaver.username)",
                     "/v/nosuchvideo", "/u/nobody_here", "/r/nosuchrally", "/r/nosuchrally/1", "/r/\(rally)/4", "/r/\(rally)/0",
                     "/r/\(rally)/x", "/r/\(rally)/01x"] {
            let result = try client.request("GET", path)
            assertPage(result, status: 404, path)
            XCTAssertTrue(result.text.contains("Not here"), path)
            XCTAssertTrue(result.text.contains("noindex"), path)
        }
        // Gone from the lists too.
        let day = try client.request("GET", "/r/\(rally)/1")
        for id in [hidden, bannedVideo, leaverVideo] { XCTAssertFalse(day.text.contains(id), "the day page leaves \(id) out") }
        // A malformed cursor is a 400 page, never a 5xx.
        for path in ["/r/\(rally)/1?before=abc", "/v/\(hidden)?after=1-", "/u/\(banned.username)?before=-1-x"] {
            let result = try client.request("GET", path)
            XCTAssertTrue(result.status == 400 || result.status == 404, "\(path): \(result.status)")
            XCTAssertEqual(result.headers["Content-Type"], "text/html; charset=utf-8", path)
        }
        assertPage(try client.request("GET", "/r/\(rally)/1?before=abc"), status: 400, "bad cursor")
    }

    func testModerationIsFollowedAtOnce() throws {
        let (owner, _, video, _) = try content()
        let moderator = try moderator()
        assertPage(try client.request("GET", "/v/\(video)"), "before")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(video)/hide", json: ["reason": "x"], token: moderator.token), 200)
        assertPage(try client.request("GET", "/v/\(video)"), status: 404, "hidden at once")
        XCTAssertFalse(try client.request("GET", "/u/\(owner.username)").text.contains(video), "out of the owner's page")
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(video)/restore", token: moderator.token), 200)
        assertPage(try client.request("GET", "/v/\(video)"), "restored at once")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/ban", json: ["reason": "x"], token: moderator.token), 200)
        assertPage(try client.request("GET", "/u/\(owner.username)"), status: 404, "banned at once")
        assertPage(try client.request("GET", "/v/\(video)"), status: 404, "a banned owner's video")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/unban", token: moderator.token), 200)
        assertPage(try client.request("GET", "/u/\(owner.username)"), "unbanned")
    }

    func testVideoObjectsCarryTheirShareURL() throws {
        let (owner, rally, video, _) = try content()
        let object = try getObject("/v1/videos/\(video)", owner.token)
        XCTAssertEqual(object["shareUrl"] as? String, "\(Self.publicURL)/v/\(video)")
        let listed = try firstPage("/v1/rallies/\(rally)/days/1/videos", owner.token)
        XCTAssertEqual(listed.first { $0["id"] as? String == video }?["shareUrl"] as? String, "\(Self.publicURL)/v/\(video)")
    }

    func testAppLinkFilesFollowTheirFormats() throws {
        let apple = try client.request("GET", "/.well-known/apple-app-site-association")
        XCTAssertEqual(apple.status, 200)
        XCTAssertTrue(apple.headers["Content-Type"]?.hasPrefix("application/json") == true)
        let applinks = try XCTUnwrap(apple.object?["applinks"] as? [String: Any])
        XCTAssertEqual((applinks["apps"] as? [Any])?.count, 0)
        let details = try XCTUnwrap(applinks["details"] as? [[String: Any]])
        XCTAssertEqual(details.count, 1)
        XCTAssertEqual(details[0]["appIDs"] as? [String], [Self.appID])
        XCTAssertEqual(details[0]["appID"] as? String, Self.appID)
        XCTAssertEqual(details[0]["paths"] as? [String], ["/r/*", "/v/*", "/u/*"])
        XCTAssertEqual((details[0]["components"] as? [[String: String]])?.map { $0["/"] ?? "" }, ["/r/*", "/v/*", "/u/*"])

        let android = try client.request("GET", "/.well-known/assetlinks.json")
        XCTAssertEqual(android.status, 200)
        let statements = try XCTUnwrap(android.json as? [[String: Any]])
        XCTAssertEqual(statements.count, 1)
        XCTAssertEqual(statements[0]["relation"] as? [String], ["delegate_permission/common.handle_all_urls"])
        let target = try XCTUnwrap(statements[0]["target"] as? [String: Any])
        XCTAssertEqual(target["namespace"] as? String, "android_app")
        XCTAssertEqual(target["package_name"] as? String, "com.example.pacenote")
        XCTAssertEqual(target["sha256_cert_fingerprints"] as? [String], [Self.fingerprint], "upper case, as keytool prints it")
    }

    /// The browser test (Tests/Browser/public_web_test.py): each page at 1280 and 375 px in
    /// headless Chromium, hostile texts shown as text and never run, no sideways scroll, no
    /// request to another host but YouTube's, and the Open Graph tags as previewers read them.
    func testPagesInAHeadlessBrowser() throws {
        guard let python = PythonScript.python() else { return }
        let owner = try client.signup(displayName: "\"><img src=x onerror=alert(1)>")
        let rally = try createRally(name: "Rally \u{202E}cilbupeR \(Fake.word())")["id"] as? String ?? ""
        let hostileTitle = "<script>alert(1)</script> Ouninpohja"
        let description = "Watch javascript:alert(1) and https://example.com/" + String(repeating: "averyveryverylongwordwithoutanybreak", count: 6)
        let youtube = Fake.youtubeId()
        let video = try postVideo(owner, rallyId: rally, title: hostileTitle, youtubeId: youtube, description: description)["id"] as? String ?? ""
        let commenter = try client.signup(displayName: "RTL \u{202E}evil\u{202C} name")
        let comment = "\u{202E}<img src=x onerror=alert(2)> \"quoted\" & 'single'"
        assertSuccess(try client.request("POST", "/v1/videos/\(video)/comments", json: ["content": comment], token: commenter.token), 201)
        let longTitle = String(repeating: "Flat out over the crest at Ouninpohja ", count: 3).trimmingCharacters(in: .whitespaces)
        let long = try postVideo(commenter, rallyId: rally, title: String(longTitle.prefix(100)))["id"] as? String ?? ""

        let base = "http://127.0.0.1:\(server.port)"
        let artifacts = ConsoleBrowserTests.packageRoot.appendingPathComponent(".build/artifacts/public-web").path
        var environment = ProcessInfo.processInfo.environment
        environment["SE_AVOID_STATS"] = "true"
        environment["SE_OFFLINE"] = "true"
        environment["BASE_URL"] = base
        environment["PUBLIC_URL"] = Self.publicURL
        environment["PAGES"] = ["/v/\(video)", "/r/\(rally)", "/r/\(rally)/1", "/u/\(owner.username)", "/u/\(commenter.username)", "/v/\(long)"]
            .joined(separator: " ")
        environment["LONG_TITLE_PATH"] = "/v/\(long)"
        environment["VIDEO_PATH"] = "/v/\(video)"
        environment["HOSTILE_TITLE"] = hostileTitle
        environment["HOSTILE_NAME"] = "\"><img src=x onerror=alert(1)>"
        environment["HOSTILE_COMMENT"] = comment
        environment["HOSTILE_DESCRIPTION"] = description
        environment["ARTIFACTS"] = artifacts
        let run = try PythonScript.run("Tests/Browser/public_web_test.py", python: python, environment: environment)
        XCTAssertEqual(run.status, 0, "public_web_test.py:\n\(run.log)")
        // What it saw (the hosts requested, the titles' lengths), kept beside the screenshots.
        try? run.log.write(toFile: artifacts + "/public_web_test.log", atomically: true, encoding: .utf8)
        for name in ["video-desktop", "video-phone", "rally-phone", "day-desktop", "day-phone", "user-phone"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: artifacts + "/\(name).png"), "screenshot \(name)")
        }
    }
}

/// Without `--public-web`: no pages, no app-link files, `shareUrl` null; and `serve` refuses the
/// flag without an absolute `--public-url`.
final class PublicWebOffTests: ServerTestCase {
    func testPagesAreAbsentAndShareURLIsNull() throws {
        let owner = try client.signup()
        let (_, video) = try rallyAndVideo(owner: owner)
        let id = video["id"] as? String ?? ""
        XCTAssertTrue(video.keys.contains("shareUrl"), "the key is there")
        XCTAssertTrue(video["shareUrl"] is NSNull, "null without the public web")
        for path in ["/v/\(id)", "/u/\(owner.username)", "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/web/site.css"] {
            assertError(try client.request("GET", path), 404, "not_found", path)
        }
    }

    func testServeRefusesThePublicWebWithoutAnAbsolutePublicURL() throws {
        let binary = try TestServer.locateBinary()
        let dir = server.dataDir.path + "-refused"
        let fingerprint = PublicWebTests.fingerprint
        let refusals: [([String], String)] = [
            (["--public-web"], "--public-web needs --public-url"),
            (["--public-web", "--public-url", "pacenote.example"], "--public-url"),
            (["--public-web", "--public-url", "https://pacenote.example/?a=1"], "--public-url"),
            (["--public-web", "--public-url", "https://pacenote.example", "--android-package", "com.example.app", "--android-cert-sha256", "AA:BB"],
             "--android-cert-sha256"),
            (["--public-web", "--public-url", "https://pacenote.example", "--android-package", "com.example.app"], "go together"),
            (["--public-web", "--public-url", "https://pacenote.example", "--apple-app-id", "com.example.app"], "--apple-app-id"),
            (["--apple-app-id", PublicWebTests.appID], "need --public-web"),
            (["--public-web", "--public-url", "https://pacenote.example", "--android-package", "app", "--android-cert-sha256", fingerprint],
             "--android-package"),
        ]
        for (flags, message) in refusals {
            let run = TestServer.run(binary: binary, arguments: ["serve", "--listen", "127.0.0.1:0", "--data-dir", dir] + flags, timeout: 30)
            XCTAssertNotEqual(run.status, 0, "\(flags)")
            XCTAssertTrue(run.stderr.contains(message), "\(flags): \(run.stderr)")
        }
        // The environment works like the flag.
        let run = TestServer.run(binary: binary, arguments: ["serve", "--listen", "127.0.0.1:0", "--data-dir", dir], timeout: 30,
                                 environment: ["PACENOTE_PUBLIC_WEB": "true"])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("--public-web needs --public-url"), run.stderr)
        try? FileManager.default.removeItem(atPath: dir)
    }
}
