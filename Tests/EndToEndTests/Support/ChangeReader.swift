import Foundation

/// A client's copy of the catalogue kept by `GET /v1/changes`, as an app keeps its local
/// database: each `upsert` stores the object, each `delete` removes it.
struct ChangeReader {
    /// The objects held, by `kind/id`.
    private(set) var objects: [String: [String: Any]] = [:]
    /// Every change read, in order, as `kind/id/op`.
    private(set) var log: [String] = []
    private(set) var token: String?
    let client: HTTPClient
    let sessionToken: String?

    init(client: HTTPClient, sessionToken: String?, since token: String? = nil) {
        self.client = client
        self.sessionToken = sessionToken
        self.token = token
    }

    /// One page; answers its changes (`kind/id/op`) and `hasMore`.
    @discardableResult
    mutating func page(limit: Int = 100) throws -> (changes: [String], hasMore: Bool) {
        var path = "/v1/changes?limit=\(limit)"
        if let token { path += "&since=\(queryValue(token))" }
        let result = try client.request("GET", path, token: sessionToken)
        guard result.status == 200, let body = result.object, let next = body["next"] as? String,
              let changes = body["changes"] as? [[String: Any]], let hasMore = body["hasMore"] as? Bool else {
            throw UnexpectedResponse(request: "GET \(path)", result: result)
        }
        var read: [String] = []
        for change in changes {
            guard let kind = change["kind"] as? String, let id = change["id"] as? String, let op = change["op"] as? String else {
                throw UnexpectedResponse(request: "GET \(path): a change without kind, id or op", result: result)
            }
            let key = "\(kind)/\(id)"
            switch op {
            case "upsert":
                guard let object = change["object"] as? [String: Any], object["id"] as? String == id else {
                    throw UnexpectedResponse(request: "GET \(path): an upsert without its object", result: result)
                }
                objects[key] = object
            case "delete":
                guard change["object"] is NSNull else { throw UnexpectedResponse(request: "GET \(path): a delete with an object", result: result) }
                objects[key] = nil
            default:
                throw UnexpectedResponse(request: "GET \(path): op \(op)", result: result)
            }
            read.append("\(key)/\(op)")
        }
        log += read
        token = next
        return (read, hasMore)
    }

    /// Pages until `hasMore` is false; answers the changes read.
    @discardableResult
    mutating func drain(limit: Int = 100, maxPages: Int = 1_000) throws -> [String] {
        var read: [String] = []
        for _ in 0..<maxPages {
            let page = try page(limit: limit)
            read += page.changes
            if !page.hasMore { return read }
        }
        throw UnexpectedResponse(request: "GET /v1/changes: still more after \(maxPages) pages",
                                 result: HTTPResult(status: 0, headers: HTTPHeaders(fields: []), body: Data(), json: nil))
    }

    /// Drains until what was read adds up to `expected` (in order), for at most `timeout`: on
    /// PostgreSQL a change is handed out once every older transaction has ended (an outbox
    /// worker's, say), a moment after its own commit. Answers what was read, for the caller's
    /// assertion; more than expected ends the wait too.
    mutating func drain(expecting expected: [String], limit: Int = 100, timeout: TimeInterval = 10) throws -> [String] {
        var read = try drain(limit: limit)
        let deadline = Date().addingTimeInterval(timeout)
        while read.count < expected.count, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            read += try drain(limit: limit)
        }
        return read
    }

    /// The video held with this id, if any.
    func video(_ id: String) -> [String: Any]? { objects["video/\(id)"] }
}
