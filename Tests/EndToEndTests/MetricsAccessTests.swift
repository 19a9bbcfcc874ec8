import Foundation
import TestSupport
import XCTest

/// `serve --metrics-token T`: `/metrics` needs `Authorization: Bearer T` (API.md "Details
/// clients rely on"), and nothing else changes.
final class MetricsTokenTests: ServerTestCase {
    static let token = "metrics-\(UUID().uuidString)"
    override class var serverArguments: [String] { ["--metrics-token", token] }

    override func setUpWithError() throws {
        ResponseAudit.shared.rememberSecret(Self.token)  // never in a log line
        try super.setUpWithError()
    }

    func testMetricsNeedTheBearerToken() throws {
        assertError(try client.request("GET", "/metrics"), 401, "unauthorized", "no Authorization")
        assertError(try client.request("GET", "/metrics", token: "metrics-wrong"), 401, "unauthorized", "another token")
        assertError(try client.request("GET", "/metrics", token: Self.token + "x"), 401, "unauthorized", "the token and more")
        assertError(try client.request("GET", "/metrics", headers: ["Authorization": "Basic \(Self.token)"]), 401, "unauthorized", "another scheme")
        let session = try client.signup()
        assertError(try client.request("GET", "/metrics", token: session.token), 401, "unauthorized", "a session is not the metrics token")

        let result = try client.request("GET", "/metrics", token: Self.token)
        XCTAssertEqual(result.status, 200, "\(result)")
        XCTAssertTrue(result.text.contains("pacenote_http_requests_total{"), String(result.text.prefix(500)))
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200, "health needs no token")
        XCTAssertEqual(try client.request("GET", "/openapi.json").status, 200, "nor does the document")
    }
}

/// `serve --metrics-listen ADDR:PORT`: `/metrics` is served on that address only; the main one
/// answers 404 for it, as for any path it does not serve.
final class MetricsListenerTests: ServerTestCase {
    override class var serverArguments: [String] { ["--metrics-listen", "127.0.0.1:0"] }

    /// The port of the metrics listener, from its own "listening" line.
    static func metricsPort(of server: TestServer) throws -> Int {
        var port: Int?
        _ = waitUntil(timeout: 5) {
            for line in server.output.stderrLines where line.contains("\"listening\"") && line.contains("\"listener\":\"metrics\"") {
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                port = (object?["listen"] as? String)?.split(separator: ":").last.flatMap { Int($0) }
            }
            return port != nil
        }
        return try XCTUnwrap(port, "no \"listening\" line with \"listener\":\"metrics\":\n\(server.output.summary())")
    }

    func testMetricsAreServedOnTheirOwnListenerOnly() throws {
        let metricsPort = try Self.metricsPort(of: server)
        XCTAssertNotEqual(metricsPort, server.port)
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200)
        assertError(try client.request("GET", "/metrics"), 404, "not_found", "the main listener")

        let metrics = HTTPClient(port: metricsPort)
        defer { metrics.close() }
        let result = try metrics.request("GET", "/metrics")
        XCTAssertEqual(result.status, 200, "\(result)")
        XCTAssertTrue(result.headers["content-type"]?.hasPrefix("text/plain") ?? false, "\(result)")
        XCTAssertTrue(result.text.contains("route=\"/healthz\""), "the main listener's requests are counted there:\n\(result.text.prefix(1500))")
        assertError(try metrics.request("GET", "/healthz"), 404, "not_found", "the metrics listener serves nothing else")
        assertError(try metrics.request("GET", "/v1/users/me"), 404, "not_found", "the metrics listener serves no API")
    }
}

/// Both: the metrics listener asks for the token too.
final class MetricsListenerWithTokenTests: ServerTestCase {
    static let token = "metrics-\(UUID().uuidString)"
    override class var serverArguments: [String] { ["--metrics-listen", "127.0.0.1:0", "--metrics-token", token] }

    func testTheMetricsListenerNeedsTheTokenToo() throws {
        ResponseAudit.shared.rememberSecret(Self.token)
        let metrics = HTTPClient(port: try MetricsListenerTests.metricsPort(of: server))
        defer { metrics.close() }
        assertError(try metrics.request("GET", "/metrics"), 401, "unauthorized")
        XCTAssertEqual(try metrics.request("GET", "/metrics", token: Self.token).status, 200)
        assertError(try client.request("GET", "/metrics", token: Self.token), 404, "not_found", "still not on the main listener")
    }
}
