import Synchronization
import Telemetry

/// Code that runs around every matched route, in the order added to the router.
///
/// Call `next` to continue; return without calling it to answer early; throw to answer with the
/// error's response. The responder converts any error (a handler's or a middleware's) into its
/// response through the router's error mapper where it escapes, so `next` always returns the
/// response the client will get: every middleware sees the final status.
public protocol Middleware<Identity>: Sendable {
    associatedtype Identity: Sendable
    func handle(
        _ request: Request, context: RequestContext<Identity>,
        next: (Request, RequestContext<Identity>) -> Response
    ) throws -> Response
}

/// Records `pacenote_http_requests_total{route,method,status}` and
/// `pacenote_http_request_duration_seconds{route}`.
///
/// Add it first so it times everything else; `next` returns the response the client gets, errors
/// included, so the recorded status is the real one. Unmatched requests (404/405) never reach middleware and are not recorded here.
public struct MetricsMiddleware<Identity: Sendable>: Middleware {
    let series: RouteSeries

    public init(registry: MetricsRegistry) {
        series = RouteSeries(registry: registry)
    }

    public func handle(
        _ request: Request, context: RequestContext<Identity>,
        next: (Request, RequestContext<Identity>) -> Response
    ) -> Response {
        let start = ContinuousClock.now
        let response = next(request, context)
        let elapsed = ContinuousClock.now - start
        let (counter, histogram) = series.metrics(route: context.route, method: request.method, status: response.status)
        counter.increment()
        histogram.observe(elapsed)
        return response
    }
}

/// The request counter and duration histogram of each (route, method, status) seen, found
/// with one small lookup instead of two registry look-ups by name and label arrays per request.
final class RouteSeries: Sendable {
    private struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private let registry: MetricsRegistry
    private let known = Mutex<[Key: (Counter, Histogram)]>([:])

    init(registry: MetricsRegistry) {
        self.registry = registry
    }

    func metrics(route: String, method: String, status: Int) -> (Counter, Histogram) {
        let key = Key(route: route, method: method, status: status)
        if let found = known.withLock({ $0[key] }) { return found }
        let found = (
            registry.counter(
                "pacenote_http_requests_total", help: "HTTP requests answered, by route, method and status.",
                labels: [("route", route), ("method", method), ("status", String(status))]),
            registry.histogram(
                "pacenote_http_request_duration_seconds", help: "Time spent answering HTTP requests.",
                labels: [("route", route)]))
        known.withLock { $0[key] = found }
        return found
    }
}

/// Maps any error to the response the client gets, logging what an operator needs.
///
/// `APIError` answers with its envelope (logged at error level with its status and code when
/// 5xx). Anything else is 500 `internal`, logged with the request id (already in `logger`), the
/// error's type name (`error_type`) and, for a `SafelyDescribedError` only, its description
/// (`error`): other descriptions, request bodies and headers may carry passwords or tokens.
func errorResponse(for error: any Error, logger: Logger) -> Response {
    if let apiError = error as? APIError {
        if apiError.status >= 500 {
            logger.error("request failed", ["status": String(apiError.status), "code": apiError.code])
        }
        return apiError.response
    }
    logUnhandledError(error, logger: logger)
    return APIError.internalError.response
}

/// Logs an error no mapper knew, as every 500 is logged: `unhandled error` with its type name
/// (`error_type`) and, for a `SafelyDescribedError` only, its description (`error`). For the
/// `ErrorRenderer`s of routes in another format, which answer the 500 themselves.
public func logUnhandledError(_ error: any Error, logger: Logger) {
    if let safe = error as? any SafelyDescribedError {
        logger.error("unhandled error", ["error_type": String(reflecting: type(of: error)), "error": safe.description])
    } else {
        logger.error("unhandled error", ["error_type": String(reflecting: type(of: error))])
    }
}
