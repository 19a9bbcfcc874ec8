import TestSupport
import XCTest

/// Health, metrics and the OpenAPI document: what operators and client generators rely on.
final class OperationsTests: ServerTestCase {
    func testHealthzAnswersOkWithoutSession() throws {
        let result = try client.request("GET", "/healthz")
        let body = assertSuccess(result, 200)
        XCTAssertEqual(body["status"] as? String, "ok", "\(result)")
    }

    func testMetricsCountRequestsByRouteTemplateAndHaveALatencyHistogram() throws {
        let stranger = Fake.username()
        _ = try client.request("GET", "/healthz")
        _ = try client.request("GET", "/v1/users/me")  // 401
        _ = try client.request("GET", "/v1/users/\(stranger)")  // 401, a path with a parameter

        let result = try client.request("GET", "/metrics")
        XCTAssertEqual(result.status, 200, "\(result)")
        XCTAssertTrue(result.headers["content-type"]?.lowercased().hasPrefix("text/plain") ?? false,
                      "Prometheus text format is served as text/plain, got \(result.headers["content-type"] ?? "nothing")")
        let lines = result.text.components(separatedBy: "\n")
        let requestSamples = lines.filter { $0.hasPrefix("pacenote_http_requests_total{") }
        XCTAssertFalse(requestSamples.isEmpty, "no pacenote_http_requests_total samples in:\n\(result.text.prefix(2000))")
        XCTAssertTrue(requestSamples.contains { $0.contains("route=\"") && $0.contains("healthz") },
                      "requests are counted with a route label, e.g. route=\"/healthz\":\n\(requestSamples.joined(separator: "\n"))")
        XCTAssertTrue(requestSamples.contains { $0.contains("status=\"401\"") || $0.contains("code=\"401\"") },
                      "requests are counted by status:\n\(requestSamples.joined(separator: "\n"))")
        XCTAssertTrue(lines.contains { $0.hasPrefix("pacenote_http_request_duration_seconds_bucket{") && $0.contains("le=\"+Inf\"") },
                      "a latency histogram pacenote_http_request_duration_seconds with an le=\"+Inf\" bucket")
        XCTAssertTrue(lines.contains { $0.hasPrefix("pacenote_outbox_backlog ") },
                      "the fan-out backlog is a gauge, pacenote_outbox_backlog:\n\(result.text.prefix(2000))")
        if !TestDatabase.isPostgres {
            XCTAssertTrue(lines.contains { $0.hasPrefix("pacenote_sqlite_wal_pages ") },
                          "SQLite's WAL size is a gauge, pacenote_sqlite_wal_pages:\n\(result.text.prefix(2000))")
            XCTAssertTrue(lines.contains { $0.hasPrefix("pacenote_sqlite_checkpoint_hold_seconds_count{by=\"checkpointer\"} ") }
                          && lines.contains { $0.hasPrefix("pacenote_sqlite_checkpoint_hold_seconds_count{by=\"commit\"} ") },
                          "how long checkpoints held the writer is a histogram by who ran them")
        }
        XCTAssertFalse(result.text.contains(stranger),
                       "route labels are templates (/v1/users/{id}), not raw paths: one series per username would explode")
    }

    func testOpenAPIDocumentDescribesAccountsAndOperations() throws {
        let result = try client.request("GET", "/openapi.json")
        let document = assertSuccess(result, 200)
        XCTAssertTrue((document["openapi"] as? String ?? "").hasPrefix("3.1"), "openapi version 3.1.x, got \(document["openapi"] ?? "nothing")")
        let paths = document["paths"] as? [String: Any] ?? [:]
        // Parameter names are the server's choice ({id}, {idOrUsername}): compare templates only.
        func template(_ path: String) -> String {
            path.replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
        }
        var methodsByTemplate: [String: Set<String>] = [:]
        for (path, item) in paths {
            let methods = (item as? [String: Any] ?? [:]).keys.map { $0.lowercased() }
            methodsByTemplate[template(path), default: []].formUnion(methods)
        }
        let expected: [(String, [String])] = [
            ("/v1/users", ["post"]),
            ("/v1/sessions", ["post", "delete"]),
            ("/v1/sessions/current", ["delete"]),
            ("/v1/users/me", ["get", "patch", "delete"]),
            ("/v1/users/me/password", ["put"]),
            ("/v1/users/{}", ["get"]),
            ("/healthz", ["get"]),
            ("/metrics", ["get"]),
            ("/openapi.json", ["get"]),
        ]
        for (path, methods) in expected {
            guard let documented = methodsByTemplate[path] else {
                XCTFail("openapi.json has no path \(path); it has \(paths.keys.sorted())")
                continue
            }
            for method in methods {
                XCTAssertTrue(documented.contains(method), "openapi.json documents \(method.uppercased()) \(path)")
            }
        }
    }

    func testOperationsEndpointsIgnoreMissingSessionButV1DoesNot() throws {
        for path in ["/healthz", "/metrics", "/openapi.json"] {
            XCTAssertEqual(try client.request("GET", path).status, 200, "\(path) needs no session")
        }
        assertError(try client.request("GET", "/v1/users/me"), 401, "unauthorized")
    }
}
