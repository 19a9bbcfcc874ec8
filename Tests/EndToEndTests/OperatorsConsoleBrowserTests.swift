import Foundation
import TestSupport
import XCTest

/// The console's operators' screens (issue 34) in headless Chromium (Tests/Browser/
/// operators_test.py): an admin imports next season's calendar from a file, fixes a rally,
/// schedules an announcement two seconds ahead and sees it sent, reads the chart; a moderator
/// sees none of it; the browser logs no error (the favicon included). Then what the browser
/// did, as the API sees it.
final class OperatorsConsoleBrowserTests: ServerTestCase {
    static var packageRoot: URL { StandIn.packageRoot }

    func testTheFaviconAndTheOperatorsScriptAreServedWithoutASession() throws {
        let icon = try client.request("GET", "/favicon.ico")
        XCTAssertEqual(icon.status, 200)
        XCTAssertEqual(icon.headers["Content-Type"], "image/svg+xml")
        XCTAssertTrue(String(decoding: icon.body, as: UTF8.self).hasPrefix("<svg"))
        let script = try client.request("GET", "/console/operators.js")
        XCTAssertEqual(script.status, 200)
        XCTAssertTrue(script.headers["Content-Type"]?.hasPrefix("text/javascript") == true)
        let text = String(decoding: script.body, as: UTF8.self)
        XCTAssertFalse(text.contains("innerHTML") || text.contains("outerHTML") || text.contains("insertAdjacentHTML"), "never assigns HTML")
        XCTAssertEqual(try client.request("GET", "/console/favicon.svg").status, 200)
    }

    func testAnAdminRunsTheSeasonFromTheConsoleAndAModeratorSeesNoneOfIt() throws {
        guard let python = PythonScript.python() else { return }
        let admin = try admin(), moderator = try moderator()
        let season = String(Calendar(identifier: .gregorian).component(.year, from: Date()) + 1)
        let artifacts = Self.packageRoot.appendingPathComponent(".build/artifacts/console").path
        var environment = ProcessInfo.processInfo.environment
        environment["SE_AVOID_STATS"] = "true"
        environment["SE_OFFLINE"] = "true"
        environment["CONSOLE_URL"] = "http://127.0.0.1:\(server.port)/console/"
        environment["ADMIN_LOGIN"] = admin.username
        environment["ADMIN_PASSWORD"] = admin.password
        environment["MODERATOR_LOGIN"] = moderator.username
        environment["MODERATOR_PASSWORD"] = moderator.password
        environment["SEASON"] = season
        environment["ARTIFACTS"] = artifacts

        let run = try PythonScript.run("Tests/Browser/operators_test.py", python: python, environment: environment, timeout: 180)
        XCTAssertEqual(run.status, 0, "operators_test.py:\n\(run.log)")

        let rallies = try XCTUnwrap(try client.request("GET", "/v1/rallies?season=\(season)", token: admin.token).object?["items"] as? [[String: Any]])
        XCTAssertEqual(Set(rallies.compactMap { $0["name"] as? String }), ["Rally Sweden", "Rally Mexico", "Safari Rally"], "imported, one fixed")
        let announcements = pageItems(assertSuccess(try client.request("GET", "/v1/announcements", token: admin.token), 200))
        let opener = try XCTUnwrap(announcements.first { child($0, "title")?["en"] as? String == "Season opener" })
        XCTAssertEqual(child(opener, "body")?["es"] as? String, "Suecia empieza el jueves.")
        XCTAssertTrue(opener["sentAt"] is String, "sent")
        for name in ["calendar-laptop", "calendar-phone", "announcements-laptop", "announcements-phone", "stats-laptop", "stats-phone"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: artifacts + "/\(name).png"), "screenshot \(name)")
        }
    }
}
