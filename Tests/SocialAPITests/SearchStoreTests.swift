import Auth
import Storage
import VideoRegistry
import XCTest
@testable import Community
@testable import SocialAPI

/// The search window: a search lists only the newest `budget` matches, pages within them
/// keep the window of the first page, and tiers order the window's rows.
final class SearchStoreTests: XCTestCase {
    func testASearchListsOnlyTheNewestBudgetMatchesAndPagesKeepTheWindow() throws {
        let app = try TestApplication()
        for index in 0..<12 {
            _ = app.signUp("fan\(index)")
            let token = app.signUp("window\(index)")
            XCTAssertEqual(app.request("PATCH", "/v1/users/me", json: #"{"displayName":"Window Fan \#(index)"}"#, token: token).status, 200)
        }
        let store = SearchStore(budget: 5)
        let query = try XCTUnwrap(SearchQuery("window fan"))
        var listed: [String] = []
        var after: SearchStore.Position?
        var windows: Set<Int64> = []
        for _ in 0..<10 {
            let page = try app.application.database.read { c in try store.users(query, exactUsername: "window fan", after: after, limit: 2, on: c) }
            listed += page.map(\.0.username)
            windows.formUnion(page.map(\.1.windowStart))
            guard let last = page.last, page.count == 2 else { break }
            after = last.1
        }
        XCTAssertEqual(listed, (7..<12).reversed().map { "window\($0)" }, "the 5 newest matches, newest first, each once")
        XCTAssertEqual(windows.count, 1, "every page used the first page's window")

        // A newer match after the first page does not move the window of the pages that follow.
        let first = try app.application.database.read { c in try store.users(query, exactUsername: "window fan", after: nil, limit: 2, on: c) }
        let token = app.signUp("window12")
        XCTAssertEqual(app.request("PATCH", "/v1/users/me", json: #"{"displayName":"Window Fan 12"}"#, token: token).status, 200)
        let rest = try app.application.database.read { c in try store.users(query, exactUsername: "window fan", after: first.last?.1, limit: 10, on: c) }
        XCTAssertEqual(rest.map(\.0.username), (7..<10).reversed().map { "window\($0)" })
    }

    func testTiersOrderTheWindow() throws {
        let app = try TestApplication()
        _ = app.signUp("fafe")  // the exact username
        _ = app.signUp("fafeira")  // a prefix match, newer
        let whole = app.signUp("someone")
        XCTAssertEqual(app.request("PATCH", "/v1/users/me", json: #"{"displayName":"Fafe"}"#, token: whole).status, 200)
        let query = try XCTUnwrap(SearchQuery("fafe"))
        let found = try app.application.database.read { c in try SearchStore().users(query, exactUsername: "fafe", after: nil, limit: 10, on: c) }
        XCTAssertEqual(found.map(\.0.username), ["fafe", "someone", "fafeira"])
        XCTAssertEqual(found.map(\.1.tier), [2, 1, 0])
    }
}
