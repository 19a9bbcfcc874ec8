import Foundation
import XCTest
@testable import SocialAPI

final class OpenAPIDocumentTests: XCTestCase {
    func testDocumentIsOpenAPI31AndDescribesEveryRoute() throws {
        let app = try TestApplication()
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any])
        XCTAssertEqual((document["openapi"] as? String)?.hasPrefix("3.1"), true)
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        for route in app.responder.routes {
            let operations = paths[route.pattern]
            XCTAssertNotNil(operations?[route.method.lowercased()], "\(route.method) \(route.pattern) is missing from openapi.json")
        }
        // And nothing documented that the server does not serve.
        let served = Set(app.responder.routes.map { "\($0.method.lowercased()) \($0.pattern)" })
        for (path, operations) in paths {
            for method in operations.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                XCTAssertTrue(served.contains("\(method) \(path)"), "openapi.json documents \(method) \(path), which is not served")
            }
        }
    }

    func testEveryReferenceResolves() throws {
        let text = String(decoding: OpenAPIDocument.bytes, as: UTF8.self)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any])
        let components = try XCTUnwrap(document["components"] as? [String: [String: Any]])
        let pattern = try NSRegularExpression(pattern: ##""\$ref": "#/components/(\w+)/(\w+)""##)
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        XCTAssertFalse(matches.isEmpty)
        for match in matches {
            let kind = String(text[Range(match.range(at: 1), in: text)!])
            let name = String(text[Range(match.range(at: 2), in: text)!])
            XCTAssertNotNil(components[kind]?[name], "unresolved #/components/\(kind)/\(name)")
        }
    }
}
