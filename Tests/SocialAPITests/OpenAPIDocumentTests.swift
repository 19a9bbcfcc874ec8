import Foundation
import XCTest
@testable import Community
@testable import SocialAPI

/// The served document is what clients are generated from, so these rules fail when an
/// endpoint is added or changed carelessly. What the server really answers is checked by the
/// contract fuzz (`scripts/contract`); these checks keep the document complete on its own.
final class OpenAPIDocumentTests: XCTestCase {
    func testDocumentIsOpenAPI31AndDescribesEveryRoute() throws {
        let app = try TestApplication()
        let document = try Self.document()
        XCTAssertEqual((document["openapi"] as? String)?.hasPrefix("3.1"), true)
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        for route in app.responder.routes {
            let operations = paths[route.pattern]
            XCTAssertNotNil(operations?[route.method.lowercased()], "\(route.method) \(route.pattern) is missing from openapi.json")
        }
        // And nothing documented that the server does not serve.
        let served = Set(app.responder.routes.map { "\($0.method.lowercased()) \($0.pattern)" })
        for (path, operations) in paths {
            for method in operations.keys where Self.methods.contains(method) {
                XCTAssertTrue(served.contains("\(method) \(path)"), "openapi.json documents \(method) \(path), which is not served")
            }
        }
    }

    func testEveryReferenceResolves() throws {
        let text = String(decoding: OpenAPIDocument.bytes, as: UTF8.self)
        let document = try Self.document()
        let components = try XCTUnwrap(document["components"] as? [String: [String: Any]])
        let pattern = try NSRegularExpression(pattern: ##""\$ref": "#/components/(\w+)/(\w+)""##)
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        XCTAssertFalse(matches.isEmpty)
        for match in matches {
            guard let kind = Range(match.range(at: 1), in: text), let name = Range(match.range(at: 2), in: text) else {
                XCTFail("unreadable $ref match")
                continue
            }
            XCTAssertNotNil(components[String(text[kind])]?[String(text[name])], "unresolved #/components/\(text[kind])/\(text[name])")
        }
    }

    /// Generated clients name their methods after operationIds: each one present, camelCase and unique.
    func testEveryOperationHasAUniqueCamelCaseOperationId() throws {
        let camelCase = try NSRegularExpression(pattern: "^[a-z][a-zA-Z0-9]*$")
        var seen: [String: String] = [:]
        for operation in try Self.operations() {
            guard let id = operation.body["operationId"] as? String else {
                XCTFail("\(operation.name) has no operationId")
                continue
            }
            XCTAssertNotNil(camelCase.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)), "\(operation.name): operationId \(id) is not camelCase")
            XCTAssertNil(seen[id], "operationId \(id) names both \(seen[id] ?? "") and \(operation.name)")
            seen[id] = operation.name
        }
    }

    /// API.md: every /v1 endpoint needs a session except sign-up and login, and the mailed-link
    /// endpoints that someone who cannot sign in uses (reset, verification); health, metrics, the
    /// document itself and the pages mail links open need none. Hard-coded here, so the rule is
    /// the contract's, not the code's.
    func testOnlyTheContractsOpenOperationsAreUnsecuredAndEverySecuredOneLists401() throws {
        let open: Set<String> = [
            "POST /v1/users", "POST /v1/sessions", "POST /v1/sessions/apple", "POST /v1/sessions/google", "POST /v1/sessions/facebook", "GET /healthz", "GET /metrics", "GET /openapi.json",
            "POST /v1/email-verifications/confirm", "POST /v1/password-resets", "POST /v1/password-resets/confirm",
            "GET /account/verify", "GET /account/reset", "GET /account/account.js", "GET /account/account.css",
            "GET /console/", "GET /console/{file}", "GET /favicon.ico", "GET /media/avatars/{name}",
        ]
        let document = try Self.document()
        let global = try XCTUnwrap(document["security"] as? [[String: Any]])
        XCTAssertEqual(global.first?.keys.first, "session")
        let schemes = (document["components"] as? [String: Any])?["securitySchemes"] as? [String: [String: Any]]
        XCTAssertEqual(schemes?["session"]?["type"] as? String, "http")
        XCTAssertEqual(schemes?["session"]?["scheme"] as? String, "bearer")
        for operation in try Self.operations() {
            let security = operation.body["security"] as? [[String: Any]] ?? global
            XCTAssertEqual(security.isEmpty, open.contains(operation.name), "\(operation.name): security does not match API.md")
            if !security.isEmpty {
                XCTAssertNotNil(operation.responses["401"], "\(operation.name) needs a session but does not list 401")
            }
        }
    }

    func testEveryOperationWithABodyLists400And413() throws {
        for operation in try Self.operations() where operation.body["requestBody"] != nil {
            XCTAssertNotNil(operation.responses["400"], "\(operation.name) takes a body but does not list 400")
            XCTAssertNotNil(operation.responses["413"], "\(operation.name) takes a body but does not list 413")
        }
    }

    /// An id in a path that names nothing is 404 (API.md).
    func testEveryOperationWithAPathParameterLists404() throws {
        for operation in try Self.operations() where operation.path.contains("{") {
            XCTAssertNotNil(operation.responses["404"], "\(operation.name) has a path parameter but does not list 404")
        }
    }

    /// API.md "Notifications" (issue 27): a known device token with another platform is 409
    /// `conflict`, and one another account registered is a new installation (201).
    func testInstallationConflictAndMoveAreDocumented() throws {
        let register = try XCTUnwrap(try Self.operations().first { $0.name == "POST /v1/installations" })
        let conflict = try Self.resolve(try XCTUnwrap(register.responses["409"], "POST /v1/installations lists 409"), in: register)
        XCTAssertTrue((conflict["description"] as? String ?? "").contains("`conflict`"))
        let created = try Self.resolve(try XCTUnwrap(register.responses["201"]), in: register)
        XCTAssertTrue((created["description"] as? String ?? "").contains("another account"), "201 covers a token moved from another account")
    }

    /// API.md "Visibility" (issue 27): a banned account's profile, lists and follow are 404,
    /// which the descriptions of those 404s say.
    func testBannedAccountsAreDocumentedAsNotFound() throws {
        let operations = Dictionary(uniqueKeysWithValues: try Self.operations().map { ($0.name, $0) })
        for name in ["GET /v1/users/{idOrUsername}", "GET /v1/users/{id}/videos", "GET /v1/users/{id}/followers",
                     "GET /v1/users/{id}/following", "PUT /v1/users/{id}/follow", "DELETE /v1/users/{id}/follow"] {
            let operation = try XCTUnwrap(operations[name], name)
            let notFound = try Self.resolve(try XCTUnwrap(operation.responses["404"], name), in: operation)
            XCTAssertTrue((notFound["description"] as? String ?? "").contains("banned"), "\(name): 404 says a banned account is not found")
        }
    }

    /// Every /v1 operation reads the database (the session at least), and a busy database is
    /// 503 `unavailable` with Retry-After.
    func testEveryDatabaseOperationLists503WithRetryAfter() throws {
        for operation in try Self.operations() where operation.path.hasPrefix("/v1/") {
            let response = try XCTUnwrap(operation.responses["503"], "\(operation.name) does not list 503")
            let headers = try Self.resolve(response, in: operation)["headers"] as? [String: Any]
            XCTAssertNotNil(headers?["Retry-After"], "\(operation.name): 503 does not declare Retry-After")
        }
    }

    /// The responder adds X-Request-Id to every answer; every documented response says so.
    func testEveryResponseDeclaresXRequestId() throws {
        for operation in try Self.operations() {
            for (status, response) in operation.responses {
                let headers = try Self.resolve(response, in: operation)["headers"] as? [String: Any]
                XCTAssertNotNil(headers?["X-Request-Id"], "\(operation.name) \(status) does not declare X-Request-Id")
            }
        }
    }

    /// Error answers carry the envelope, and their descriptions name the codes a client can meet.
    func testEveryErrorResponseIsTheEnvelopeAndNamesItsCodes() throws {
        let document = try Self.document()
        let schemas = try XCTUnwrap((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let error = (schemas["Error"] as? [String: Any])?["properties"] as? [String: Any]
        let envelope = (error?["error"] as? [String: Any])?["properties"] as? [String: Any]
        let codes = try XCTUnwrap((envelope?["code"] as? [String: Any])?["enum"] as? [String])
        for operation in try Self.operations() where operation.name != "GET /healthz" {
            // A 304 (a cached copy still good) is an answer without a body, not an error.
            for (status, response) in operation.responses where !status.hasPrefix("2") && status != "304" {
                let resolved = try Self.resolve(response, in: operation)
                let schema = ((resolved["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
                XCTAssertEqual(schema?["$ref"] as? String, "#/components/schemas/Error", "\(operation.name) \(status) is not the error envelope")
                let description = resolved["description"] as? String ?? ""
                XCTAssertTrue(codes.contains { description.contains("`\($0)`") }, "\(operation.name) \(status): the description names no error code")
            }
        }
    }

    /// Every JSON GET answers with an ETag and 304 on a match (`ConditionalGetMiddleware`), so
    /// each declares both, and `If-None-Match`; but the streamed export (no ETag: its bytes do not
    /// exist yet) and the pictures (their own tag and caching).
    func testEveryJSONGetDeclaresItsETagAnd304() throws {
        let exempt: Set<String> = ["GET /v1/users/me/export", "GET /media/avatars/{name}"]
        for operation in try Self.operations() where operation.name.hasPrefix("GET ") && !exempt.contains(operation.name) {
            let ok = try Self.resolve(try XCTUnwrap(operation.responses["200"], operation.name), in: operation)
            guard (ok["content"] as? [String: Any])?["application/json"] != nil else { continue }
            let headers = ok["headers"] as? [String: Any]
            XCTAssertNotNil(headers?["ETag"], "\(operation.name): 200 does not declare ETag")
            XCTAssertNotNil(headers?["Cache-Control"], "\(operation.name): 200 does not declare Cache-Control")
            let notModified = try Self.resolve(try XCTUnwrap(operation.responses["304"], "\(operation.name) does not list 304"), in: operation)
            XCTAssertNil(notModified["content"], "\(operation.name): a 304 has no body")
            XCTAssertNotNil((notModified["headers"] as? [String: Any])?["ETag"], "\(operation.name): 304 does not declare ETag")
            let references = (operation.body["parameters"] as? [[String: Any]] ?? []).compactMap { $0["$ref"] as? String }
            XCTAssertTrue(references.contains("#/components/parameters/IfNoneMatch"), "\(operation.name) does not take If-None-Match")
        }
    }

    /// Lists share the paging parameters, so every generated client pages the same way.
    func testEveryPageTakesTheSharedPagingParameters() throws {
        for operation in try Self.operations() {
            let ok = try Self.resolve(try XCTUnwrap(operation.responses["200"] ?? operation.responses["201"] ?? operation.responses["204"]), in: operation)
            let schema = ((ok["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
            guard let ref = schema?["$ref"] as? String, ref.hasSuffix("Page") else { continue }
            let references = (operation.body["parameters"] as? [[String: Any]] ?? []).compactMap { $0["$ref"] as? String }
            XCTAssertTrue(references.contains("#/components/parameters/Limit"), "\(operation.name) is a page without the Limit parameter")
            XCTAssertTrue(references.contains("#/components/parameters/Cursor"), "\(operation.name) is a page without the Cursor parameter")
        }
    }

    /// Links drive schemathesis' stateful phase; one naming an unknown operation or parameter is dead.
    func testEveryLinkNamesAnOperationAndItsParameters() throws {
        let operations = try Self.operations()
        let byID = Dictionary(uniqueKeysWithValues: operations.compactMap { op in (op.body["operationId"] as? String).map { ($0, op) } })
        var count = 0
        for operation in operations {
            for (status, response) in operation.responses {
                for (name, value) in try Self.resolve(response, in: operation)["links"] as? [String: [String: Any]] ?? [:] {
                    count += 1
                    let target = try XCTUnwrap(byID[value["operationId"] as? String ?? ""], "\(operation.name) \(status) link \(name) names no operation")
                    let declared = Set((target.body["parameters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
                    for parameter in (value["parameters"] as? [String: Any] ?? [:]).keys {
                        XCTAssertTrue(declared.contains(parameter), "\(operation.name) \(status) link \(name): \(target.name) has no parameter \(parameter)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(count, 0)
    }

    /// Clients type path parameters from the document: the rally day is a number.
    func testTheRallyDayIsAnIntegerPathParameter() throws {
        let operation = try XCTUnwrap(try Self.operations().first { $0.name == "GET /v1/rallies/{id}/days/{n}/videos" })
        let n = try XCTUnwrap((operation.body["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "n" })
        XCTAssertEqual((n["schema"] as? [String: Any])?["type"] as? String, "integer")
    }

    // MARK: - Reading the document

    static let methods: Set<String> = ["get", "post", "put", "patch", "delete"]

    struct Operation {
        let method: String
        let path: String
        let body: [String: Any]
        /// `components.responses`, which `$ref`s in `responses` point to.
        let sharedResponses: [String: Any]
        var name: String { "\(method.uppercased()) \(path)" }
        var responses: [String: Any] { body["responses"] as? [String: Any] ?? [:] }
    }

    static func document() throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any])
    }

    static func operations() throws -> [Operation] {
        let document = try document()
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        let shared = (document["components"] as? [String: Any])?["responses"] as? [String: Any] ?? [:]
        return paths.flatMap { path, operations in
            operations.compactMap { method, body in
                guard methods.contains(method), let body = body as? [String: Any] else { return nil }
                return Operation(method: method, path: path, body: body, sharedResponses: shared)
            }
        }.sorted { $0.name < $1.name }
    }

    /// A response object, following one `$ref` to `#/components/responses/...`.
    static func resolve(_ response: Any, in operation: Operation) throws -> [String: Any] {
        let object = try XCTUnwrap(response as? [String: Any])
        guard let ref = object["$ref"] as? String else { return object }
        let name = try XCTUnwrap(ref.split(separator: "/").last.map(String.init))
        return try XCTUnwrap(operation.sharedResponses[name] as? [String: Any], "unresolved \(ref)")
    }
}
