import Foundation
import XCTest

/// A client keeping one list fresh the way API.md's "Sync" tells apps to: the first page, then
/// `?newerThan=<prevCursor>` repeated while `hasNewer`, every time it refreshes. It remembers
/// every id it was given and every id it was given twice.
struct ListRefresher {
    let client: HTTPClient
    let path: String
    let token: String?
    let limit: Int

    private(set) var seen: [String] = []
    private(set) var repeats: [String] = []
    private(set) var prevCursor: String?
    /// Requests made, first page included.
    private(set) var requests = 0

    init(client: HTTPClient, path: String, token: String?, limit: Int) {
        self.client = client
        self.path = path
        self.token = token
        self.limit = limit
    }

    /// The first page; its ids, newest first.
    @discardableResult
    mutating func start() throws -> [String] {
        let page = try get(appendingQuery(path, "limit", "\(limit)"))
        return take(page)
    }

    /// Refreshes until the head: the ids each answer brought, in order.
    @discardableResult
    mutating func refresh(maxRequests: Int = 200) throws -> [String] {
        var brought: [String] = []
        for _ in 0..<maxRequests {
            guard let cursor = prevCursor else { throw RefreshFailure(description: "\(path): no prevCursor to refresh from") }
            let page = try get(appendingQuery(appendingQuery(path, "limit", "\(limit)"), "newerThan", cursor))
            guard let hasNewer = page["hasNewer"] as? Bool else { throw RefreshFailure(description: "\(path): a refresh without hasNewer: \(page)") }
            brought += take(page)
            if !hasNewer { return brought }
        }
        throw RefreshFailure(description: "\(path): still hasNewer after \(maxRequests) refreshes")
    }

    private mutating func take(_ page: [String: Any]) -> [String] {
        let items = ids(pageItems(page))
        for id in items {
            if seen.contains(id) { repeats.append(id) } else { seen.append(id) }
        }
        prevCursor = page["prevCursor"] as? String
        return items
    }

    private mutating func get(_ target: String) throws -> [String: Any] {
        requests += 1
        let result = try client.request("GET", target, token: token)
        guard result.status == 200, let page = result.object else { throw UnexpectedResponse(request: "GET \(target)", result: result) }
        return page
    }
}

struct RefreshFailure: Error, CustomStringConvertible {
    let description: String
}
