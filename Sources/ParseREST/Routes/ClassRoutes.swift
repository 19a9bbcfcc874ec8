import Auth
import HTTP
import JSON
import VideoRegistry

/// `GET /classes/<Class>` (a find) and `GET /classes/<Class>/<objectId>` for the classes this
/// server serves (`ParseSchema.byClassName`). Other classes are 119 (PARSE-REST.md §6: a
/// whitelist, not Parse's schema-less classes); writes are `ClassWrites`'.
struct ClassRoutes {
    let sessions: ParseSessions
    let reads: ClassReads
    let writes: ClassWrites

    let installations: InstallationRoutes

    var endpoints: [ParseEndpoint] {
        let write = RoutePolicy.public(pool: .blocking)
        // `_Installation` under /classes is the iOS SDK's path for what /installations serves.
        let installation: @Sendable (Parameters) -> Bool = { parameters in parameters["className"] == InstallationRoutes.className }
        let (writes, installations) = (self.writes, self.installations)
        return [
            ParseEndpoint("/classes/{className}", [
                "GET": ({ request, parameters in
                    if installation(parameters) { return try installations.find(request, parameters) }
                    return try Self.find(try Self.schema(parameters), sessions, reads)(request, parameters)
                }, .public),
                "POST": ({ @Sendable request, parameters in
                    if installation(parameters) { return try installations.create(request, parameters) }
                    return try writes.create(request, parameters)
                }, write),
            ]),
            ParseEndpoint("/classes/{className}/{objectId}", [
                "GET": ({ request, parameters in
                    if installation(parameters) { return try installations.get(request, parameters) }
                    return try Self.get(try Self.schema(parameters), sessions, reads)(request, parameters)
                }, .public),
                "PUT": ({ @Sendable request, parameters in
                    if installation(parameters) { return try installations.update(request, parameters) }
                    return try writes.update(request, parameters)
                }, write),
                "DELETE": ({ @Sendable request, parameters in
                    if installation(parameters) { return try installations.delete(request, parameters) }
                    return try writes.delete(request, parameters)
                }, write),
            ]),
        ]
    }

    /// A find on `schema`: `{"results": [...]}` (and `"count"`), as the caller may see them;
    /// anonymous only with `--public-read` (`ParseSessions.reader`).
    static func find(_ schema: ParseSchema, _ sessions: ParseSessions, _ reads: ClassReads) -> ParseHandler {
        { request, _ in
            let identity = try sessions.reader(request)
            let parsed = try ParseQuery.parse(request.parameters, for: .find)
            var query = try QueryTranslator.translate(parsed, in: schema, viewer: Viewer(identity))
            // The app's home feed is the list /v1 keeps ready: read from the home timeline.
            if let identity, HomeFeedShape.matches(parsed, schema, callerID: identity.userID) {
                query = try HomeFeedShape.page(query, parsed, for: identity, on: reads.database)
            }
            return .json(200, writer: try reads.find(schema, query, viewer: Viewer(identity)))
        }
    }

    /// The object `{objectId}` names, if the caller may see it; 101 otherwise. Anonymous only
    /// with `--public-read`, as a find.
    static func get(_ schema: ParseSchema, _ sessions: ParseSessions, _ reads: ClassReads) -> ParseHandler {
        { request, parameters in
            let identity = try sessions.reader(request)
            var query = try ParseQuery.parse(request.parameters, for: .get)
            query.constraints.append(.init(field: "objectId", op: .equal, value: .string(try parameters.require("objectId"))))
            query.limit = 1
            let translated = try QueryTranslator.translate(query, in: schema, viewer: Viewer(identity))
            return .json(200, writer: try reads.get(schema, translated, viewer: Viewer(identity)))
        }
    }

    /// The class the path names: 103 for a name Parse could not have made, 119 for one this
    /// server does not serve (_Session, _Role: never).
    static func schema(_ parameters: Parameters) throws -> ParseSchema {
        let name = try parameters.require("className")
        if let schema = ParseSchema.byClassName[name] { return schema }
        let isLetter: (UInt8) -> Bool = { (65...90).contains($0) || (97...122).contains($0) }
        let bytes = Array(name.utf8)
        let isClassName = bytes.first.map { isLetter($0) || $0 == UInt8(ascii: "_") } ?? false
            && bytes.allSatisfy { isLetter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") }
        guard isClassName else { throw ParseError(.invalidClassName, "Invalid classname: \(name), classnames can only have alphanumeric characters and _, and must start with an alpha character") }
        throw ParseError(.operationForbidden, "This server does not serve the class \(name).")
    }
}
