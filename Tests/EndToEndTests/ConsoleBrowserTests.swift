import Foundation
import TestSupport
import XCTest

/// The moderation console (`/console/`): its static files and headers over HTTP, and the
/// browser test (Tests/Browser/console_test.py) in a real headless Chromium against this server.
final class ConsoleBrowserTests: ServerTestCase {
    /// The package's folder (this file is Tests/EndToEndTests/ConsoleBrowserTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
        let python = ProcessInfo.processInfo.environment["PACENOTE_TEST_PYTHON"]
            ?? Self.packageRoot.appendingPathComponent(".build/venv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return XCTFail("no Python at \(python): run scripts/python-env (scripts/test does)")
        }
        let moderator = try moderator()
        let user = try client.signup()
        let owner = try client.signup()
        let rally = try createRally()["id"] as? String ?? ""
        let flaggedTitle = "Flying finn \(Fake.word())"
        let hostileTitle = "<img src=x onerror=alert(1)>"
        let flagged = try postVideo(owner, rallyId: rally, title: flaggedTitle)["id"] as? String ?? ""
        let hostile = try postVideo(owner, rallyId: rally, title: hostileTitle)["id"] as? String ?? ""
        for video in [flagged, hostile] {
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
        environment["FLAGGED_TITLE"] = flaggedTitle
        environment["HOSTILE_TITLE"] = hostileTitle
        environment["ARTIFACTS"] = artifacts

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.packageRoot.appendingPathComponent("Tests/Browser/console_test.py").path]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let collected = Locked(Data())
        let reader = Thread { collected.withLock { $0 = output.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        _ = waitUntil(timeout: 180, interval: 0.1) { !process.isRunning }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        _ = waitUntil(timeout: 5) { reader.isFinished }
        let log = String(decoding: collected.withLock { $0 }, as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, "console_test.py:\n\(log)")

        // What the browser did, as the API sees it: the video is gone for everyone else.
        assertError(try client.request("GET", "/v1/videos/\(flagged)", token: user.token), 404, "not_found", "hidden through the console")
        let entry = try firstPage("/v1/moderation/log", moderator.token, limit: 1).first
        XCTAssertEqual(entry?["action"] as? String, "hide")
        XCTAssertEqual(entry?["reason"] as? String, "Dangerous spectators")
        XCTAssertEqual(try getObject("/v1/videos/\(hostile)", user.token)["title"] as? String, hostileTitle, "the hostile video is untouched")
        for name in ["queue-phone", "queue-laptop"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: artifacts + "/\(name).png"), "screenshot \(name)")
        }
    }
}
