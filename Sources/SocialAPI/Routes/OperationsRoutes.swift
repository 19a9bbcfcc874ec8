import Auth
import Crypto
import HTTP
import JSON
import Storage
import Telemetry

/// API.md "Operations": health, metrics and the OpenAPI document. None needs a session.
///
/// `/metrics` tells whoever reads it how busy the server is, which routes fail and how
/// deep the outbox runs, so an operator keeps it off the internet (docs/deployment.md
/// "Protecting /metrics"): with `serve --metrics-token T` it needs `Authorization: Bearer T`
/// (else 401 `unauthorized`), and with `--metrics-listen` it is served only by the responder
/// of that listener (`registerMetrics`), so the main one answers 404 for it.
struct OperationsRoutes {
    let database: any Database
    let metrics: MetricsRegistry
    /// SHA-256 of the metrics token; nil when `/metrics` is open. Digests are what is compared,
    /// so the comparison takes the same time whatever the length of the token tried.
    let metricsTokenDigest: [UInt8]?

    init(database: any Database, metrics: MetricsRegistry, metricsToken: String? = nil) {
        self.database = database
        self.metrics = metrics
        metricsTokenDigest = metricsToken.map { SHA256.hash($0) }
    }

    /// `/healthz`, `/openapi.json` and, when `servesMetrics` (no listener of its own), `/metrics`.
    func register(on router: RouterBuilder<Accounts.Identity>, servesMetrics: Bool = true) {
        router.get("/healthz", policy: .public, health)
        if servesMetrics { registerMetrics(on: router) }
        router.get("/openapi.json", policy: .public, openAPI)
    }

    /// `/metrics` alone, for the responder of the main listener or of `--metrics-listen`.
    func registerMetrics(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/metrics", policy: .public, prometheus)
    }

    static let metricsTokenRequired = APIError(
        status: 401, code: "unauthorized", message: "The metrics need the token the server was given (--metrics-token).",
        headers: [("WWW-Authenticate", "Bearer")])

    @Sendable func health(_ request: Request, _ context: Context) throws -> Response {
        let up = database.ping()
        var writer = JSONWriter(capacity: 32)
        writer.beginObject()
        writer.field("status", up ? "ok" : "unavailable")
        writer.endObject()
        return .json(up ? 200 : 503, writer: writer)
    }

    @Sendable func prometheus(_ request: Request, _ context: Context) throws -> Response {
        if let metricsTokenDigest {
            guard let given = AuthMiddleware.bearerToken(request.headers["authorization"]),
                  constantTimeEquals(SHA256.hash(given), metricsTokenDigest) else { throw Self.metricsTokenRequired }
        }
        return Response(
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
