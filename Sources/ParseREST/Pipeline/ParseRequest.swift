import HTTP
import JSON
import Telemetry

/// A request as parse-server's middleware leaves it for a router (PARSE-REST.md §1.1): the
/// body read as JSON whatever the Content-Type, the method a `POST` tunnels in `_method`, the
/// keys and session from the headers (or, from the JavaScript SDK, the body), every
/// `_`-prefixed control key removed, and the query string merged over the body.
struct ParseRequest: Sendable {
    /// GET, POST, PUT or DELETE: `_method` when a POST carries one.
    let method: String
    /// The body's members without the control keys, with the query string's parameters over
    /// them, each value JSON-parsed when it parses (`limit=10` is the number 10), as
    /// parse-server's `JSONFromQuery`.
    let parameters: [String: JSONValue]
    /// The body's members alone (without the control keys): an object's fields on signup.
    let body: [String: JSONValue]
    /// `X-Parse-Session-Token`, or the JavaScript SDK's `_SessionToken`.
    let sessionToken: String?
    /// `X-Parse-Installation-Id`, or `_InstallationId`.
    let installationID: String?
    /// The request as received (headers, the raw query, the client's address); for a batch's
    /// sub-request, the batch's.
    let http: Request
    /// The request's logger (its `request_id`), for what a handler logs itself (a batch's 500s).
    var logger = Logger(handler: NullLogHandler())

    /// The keys that steer the pipeline rather than the operation; removed before the query's
    /// whitelist is applied (PARSE-REST.md §6, "Mounting and methods").
    static let controlKeys: Set<String> = [
        "_method", "_ApplicationId", "_ClientKey", "_JavaScriptKey", "_RESTAPIKey", "_MasterKey", "_SessionToken",
        "_InstallationId", "_ClientVersion", "_RevocableSession", "_context", "_ContentType", "_noBody",
    ]

    /// A sub-request of `POST /batch`: its method and body, the batch's session and headers
    /// (parse-server's batch.js runs each with the batch's auth). The body's control keys are
    /// removed as a request's are; the body is also the parameters (a batched GET's query).
    init(batched method: String, body: [String: JSONValue], within batch: ParseRequest) {
        var members = body
        for key in Self.controlKeys { members[key] = nil }
        self.method = method
        self.body = members
        parameters = members
        sessionToken = batch.sessionToken
        installationID = batch.installationID
        http = batch.http
        logger = batch.logger
    }

    /// Runs the pipeline in parse-server's order: body, `_method`, application id and keys.
    /// Malformed JSON is 107; a missing or wrong application id or key is 403 `unauthorized`.
    init(_ request: Request, keys: ParseKeys) throws(ParseError) {
        var members: [String: JSONValue] = [:]
        if !request.body.isEmpty {
            guard case .object(let object)? = try? JSONValue.parse(request.body, duplicateKeys: .refuse) else {
                throw ParseError(.invalidJSON, "The request body is not a JSON object.")
            }
            members = object
        }
        var method = request.method == "HEAD" ? "GET" : request.method
        if method == "POST", let tunnelled = members["_method"] {
            guard let name = tunnelled.stringValue?.uppercased(), ["GET", "POST", "PUT", "DELETE"].contains(name) else {
                throw ParseError(.invalidJSON, "_method must be GET, POST, PUT or DELETE.")
            }
            method = name
        }
        let headers = request.headers
        // The body's keys count only when the headers do not name the application (parse-server
        // reads them only then, as the JavaScript SDK sends them).
        let fromBody = !keys.isApplicationID(headers["x-parse-application-id"])
        if fromBody {
            guard keys.isApplicationID(members["_ApplicationId"]?.stringValue) else { throw .unauthorized }
        }
        let sentKeys = [headers["x-parse-client-key"], headers["x-parse-rest-api-key"],
                        fromBody ? members["_ClientKey"]?.stringValue : nil].compactMap { $0 }
        guard keys.acceptsClientKeys(sentKeys) else { throw .unauthorized }
        sessionToken = headers["x-parse-session-token"] ?? (fromBody ? members["_SessionToken"]?.stringValue : nil)
        installationID = headers["x-parse-installation-id"] ?? members["_InstallationId"]?.stringValue
        for key in Self.controlKeys { members[key] = nil }
        body = members
        var merged = members
        for (name, text) in request.query {
            merged[name] = (try? JSONValue.parse(Array(text.utf8))) ?? .string(text)
        }
        parameters = merged
        self.method = method
        http = request
    }
}
