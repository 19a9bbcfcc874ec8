import HTTP
import JSON

/// `POST /batch` `{"requests": [{"method", "path", "body"}]}` (PARSE-REST.md §1.3, parse-server's
/// batch.js): each sub-request runs through the same endpoint handlers as on its own, with the
/// batch's session, one after another, each answered on its own as `{"success": answer}` or
/// `{"error": {"code", "error"}}`. Sub-paths may carry `/parse` or `/1`, or no prefix.
/// At most 50 requests (the SDKs' own limit); more, or a malformed list, is 107 for the batch.
struct BatchRoutes {
    static let maxRequests = 50
    let endpoints: [ParseEndpoint]

    var endpoint: ParseEndpoint {
        ParseEndpoint("/batch", ["POST": (batch, .public(pool: .blocking))])
    }

    @Sendable func batch(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        guard case .array(let items)? = request.body["requests"] else {
            throw ParseError(.invalidJSON, "requests must be an array")
        }
        guard items.count <= Self.maxRequests else {
            throw ParseError(.invalidJSON, "A batch holds at most \(Self.maxRequests) requests.")
        }
        var writer = JSONWriter(capacity: 128 * max(items.count, 1))
        writer.beginArray()
        for item in items {
            let response: Response
            do {
                response = try run(item, within: request)
            } catch {
                response = ParseErrors.render(error, logger: request.logger)
            }
            writer.beginObject()
            writer.key((200..<300).contains(response.status) ? "success" : "error")
            writer.encoded(response.body.isEmpty ? Array("{}".utf8) : response.body)
            writer.endObject()
        }
        writer.endArray()
        return .json(200, writer: writer)
    }

    private func run(_ item: JSONValue, within batch: ParseRequest) throws -> Response {
        guard let method = item["method"]?.stringValue?.uppercased(), ["GET", "POST", "PUT", "DELETE"].contains(method) else {
            throw ParseError(.invalidJSON, "A batch request's method must be GET, POST, PUT or DELETE.")
        }
        guard let path = item["path"]?.stringValue else { throw ParseError(.invalidJSON, "A batch request needs a path.") }
        let body: [String: JSONValue]
        switch item["body"] {
        case nil, .null?: body = [:]
        case .object(let members)?: body = members
        default: throw ParseError(.invalidJSON, "A batch request's body must be an object.")
        }
        let route = Self.route(path)
        for endpoint in endpoints {
            if let parameters = Self.match(endpoint.path, route) {
                // A route with a rate limit of its own (sign-up, login) counts it in the
                // middleware, per request: batched, 50 would count as one. Such routes, and
                // bcrypt's, are not batched (the SDKs batch only object saves and deletes).
                let policy = endpoint.policies.first { $0.0 == method }?.1
                if policy?.limit != nil || policy?.pool == .offload {
                    throw ParseError(.operationForbidden, "\(method) \(route) cannot be batched; send it on its own.")
                }
                return try endpoint.respond(to: ParseRequest(batched: method, body: body, within: batch), parameters)
            }
        }
        throw ParseError(.invalidJSON, "cannot route batch path \(route)")
    }

    /// The path without its mount (`/parse` or `/1`), as parse-server strips it.
    static func route(_ path: String) -> String {
        for prefix in ParseFacade.prefixes where path.hasPrefix(prefix + "/") {
            return String(path.dropFirst(prefix.count))
        }
        return path.hasPrefix("/") ? path : "/" + path
    }

    /// The parameters of `path` for `template` (`/classes/{className}/{objectId}`), or nil.
    static func match(_ template: String, _ path: String) -> Parameters? {
        let patterns = template.split(separator: "/", omittingEmptySubsequences: false)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard patterns.count == segments.count else { return nil }
        var pairs: [(String, String)] = []
        for (pattern, segment) in zip(patterns, segments) {
            if pattern.hasPrefix("{") && pattern.hasSuffix("}") {
                guard !segment.isEmpty else { return nil }
                pairs.append((String(pattern.dropFirst().dropLast()), String(segment)))
            } else if pattern != segment {
                return nil
            }
        }
        return Parameters(pairs)
    }
}

/// `POST /push`: answered `{"result": true}` and dropped. Pacenote fans out its own
/// notifications (new videos, activity to a user, the people they follow), so a client's push
/// would be a second one (parse-server refuses it without the master key).
enum PushRoutes {
    static func endpoint(_ sessions: ParseSessions) -> ParseEndpoint {
        ParseEndpoint("/push", ["POST": ({ request, _ in
            _ = try sessions.caller(request)
            var writer = JSONWriter(capacity: 16)
            writer.beginObject()
            writer.field("result", true)
            writer.endObject()
            return .json(200, writer: writer)
        }, .public)])
    }
}
