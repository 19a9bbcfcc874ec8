import HTTP
import JSON
import Testing
@testable import ParseREST

/// The pipeline: `_method`, the keys in headers or body, control keys removed, the query merged.
struct ParseRequestTests {
    let keys = ParseKeys(applicationID: "app", clientKey: "client")

    func request(_ method: String = "POST", body: String = "", query: [String: String] = [:], headers: [(String, String)]) -> Request {
        Request(method: method, path: "/parse/classes/Video", query: query, headers: HTTPHeaders(headers), body: Array(body.utf8))
    }

    @Test func iOSTunnelledFind() throws {
        let parsed = try ParseRequest(request(body: #"{"_method":"GET","where":{"nDay":1},"limit":"5"}"#,
                                              headers: [("X-Parse-Application-Id", "app"), ("X-Parse-Client-Key", "client"),
                                                        ("X-Parse-Session-Token", "r:abc")]), keys: keys)
        #expect(parsed.method == "GET")
        #expect(parsed.sessionToken == "r:abc")
        #expect(parsed.parameters == ["where": .object(["nDay": .int(1)]), "limit": .string("5")])
    }

    @Test func javaScriptBodyKeys() throws {
        let parsed = try ParseRequest(request(body: #"{"_method":"GET","_ApplicationId":"app","_ClientKey":"client","_SessionToken":"r:t","_InstallationId":"i"}"#,
                                              headers: [("Content-Type", "text/plain")]), keys: keys)
        #expect(parsed.sessionToken == "r:t" && parsed.installationID == "i")
        #expect(parsed.parameters.isEmpty)
    }

    @Test func theQueryStringIsJSONParsedOverTheBody() throws {
        let parsed = try ParseRequest(request("GET", query: ["limit": "10", "order": "-nLikes"], headers: [("X-Parse-Application-Id", "app"), ("X-Parse-Client-Key", "client")]),
                                      keys: keys)
        #expect(parsed.parameters == ["limit": .int(10), "order": .string("-nLikes")])
    }

    @Test func refusals() {
        #expect(throws: ParseError.unauthorized) { try ParseRequest(request(headers: []), keys: keys) }
        #expect(throws: ParseError.unauthorized) { try ParseRequest(request(headers: [("X-Parse-Application-Id", "other")]), keys: keys) }
        #expect(throws: ParseError.unauthorized) {
            try ParseRequest(request(headers: [("X-Parse-Application-Id", "app"), ("X-Parse-Client-Key", "wrong")]), keys: keys)
        }
        #expect(throws: ParseError(.invalidJSON, "The request body is not a JSON object.")) {
            try ParseRequest(request(body: "[1]", headers: [("X-Parse-Application-Id", "app")]), keys: keys)
        }
        // No key configured: none needed.
        #expect(throws: Never.self) { try ParseRequest(request(headers: [("X-Parse-Application-Id", "app")]), keys: ParseKeys(applicationID: "app")) }
    }
}
