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

    var endpoints: [ParseEndpoint] {
        let write = RoutePolicy.public(pool: .blocking)
        return [
            ParseEndpoint("/classes/{className}", [
                "GET": ({ request, parameters in try Self.find(try Self.schema(parameters), sessions, reads)(request, parameters) }, .public),
                "POST": (writes.create, write),
            ]),
            ParseEndpoint("/classes/{className}/{objectId}", [
                "GET": ({ request, parameters in try Self.get(try Self.schema(parameters), sessions, reads)(request, parameters) }, .public),
                "PUT": (writes.update, write),
                "DELETE": (writes.delete, write),
            ]),
        ]
    }

    /// A find on `schema`: `{"results": [...]}` (and `"count"`), as the caller may see them.
    static func find(_ schema: ParseSchema, _ sessions: ParseSessions, _ reads: ClassReads) -> ParseHandler {
        { request, _ in
            let identity = try sessions.caller(request)
            let query = try QueryTranslator.translate(try ParseQuery.parse(request.parameters, for: .find), in: schema)
            return .json(200, writer: try reads.find(schema, query, viewer: Viewer(identity)))
        }
    }

    /// The object `{objectId}` names, if the caller may see it; 101 otherwise.
    static func get(_ schema: ParseSchema, _ sessions: ParseSessions, _ reads: ClassReads) -> ParseHandler {
        { request, parameters in
            let identity = try sessions.caller(request)
            var query = try ParseQuery.parse(request.parameters, for: .get)
            query.constraints.append(.init(field: "objectId", op: .equal, value: .string(try parameters.require("objectId"))))
            query.limit = 1
            let translated = try QueryTranslator.translate(query, in: schema)
            return .json(200, writer: try reads.get(schema, translated, viewer: Viewer(identity)))
        }
    }

    /// The class the path names: 103 for a name Parse could not have made, 119 for one this
    /// server does not serve (yet: _Installation; never: _Session, _Role).
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
