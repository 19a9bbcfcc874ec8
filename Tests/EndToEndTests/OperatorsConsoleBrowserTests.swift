import Foundation
import TestSupport
import XCTest

/// The console's operators' screens (issue 34) in headless Chromium (Tests/Browser/
/// operators_test.py): an admin imports next season's calendar from a file, fixes a rally,
/// schedules an announcement two seconds ahead and sees it sent, reads the chart; a moderator
/// sees none of it; the browser logs no error (the favicon included). Then what the browser
/// did, as the API sees it.
final class OperatorsConsoleBrowserTests: ServerTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
        let python = ProcessInfo.processInfo.environment["PACENOTE_TEST_PYTHON"] ?? Self.packageRoot.appendingPathComponent(".build/venv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else { return XCTFail("no Python at \(python): run scripts/python-env") }
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

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.packageRoot.appendingPathComponent("Tests/Browser/operators_test.py").path]
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
        XCTAssertEqual(process.terminationStatus, 0, "operators_test.py:\n\(String(decoding: collected.withLock { $0 }, as: UTF8.self))")

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
