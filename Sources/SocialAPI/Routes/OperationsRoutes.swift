import Auth
import JSON
import HTTP
import Storage
import Telemetry

/// API.md "Operations": health, metrics and the OpenAPI document. None needs a session.
struct OperationsRoutes {
    let database: any Database
    let metrics: MetricsRegistry

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/healthz", health)
        router.get("/metrics", prometheus)
        router.get("/openapi.json", openAPI)
    }

    @Sendable func health(_ request: Request, _ context: Context) throws -> Response {
        let up = database.ping()
        var writer = JSONWriter(capacity: 32)
        writer.beginObject()
        writer.field("status", up ? "ok" : "unavailable")
        writer.endObject()
        return .json(up ? 200 : 503, writer: writer)
    }

    @Sendable func prometheus(_ request: Request, _ context: Context) throws -> Response {
        Response(
            status: 200,
            headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
            body: Array(metrics.renderPrometheus().utf8)
        )
    }

    @Sendable func openAPI(_ request: Request, _ context: Context) throws -> Response {
        Response(status: 200, headers: [Response.jsonContentType], body: OpenAPIDocument.bytes)
    }
}

/// The OpenAPI 3.1 document, `Sources/SocialAPI/openapi.json`, embedded in the binary.
/// `OpenAPIDocumentTests` fails when a registered route is missing from it.
enum OpenAPIDocument {
    static let bytes: [UInt8] = PackageResources.openapi_json
}
