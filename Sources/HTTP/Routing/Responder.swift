import Telemetry

/// What the server calls for every request. Implementations are immutable and thread-safe.
public protocol HTTPResponder: Sendable {
    /// The pool the request's route asked to run on (`RoutePolicy.pool`); nil: the serving thread.
    func workerPool(for request: Request) -> WorkerPool?
    /// The body limit the request's route declared (`RoutePolicy.maxBodyBytes`); nil: the server's.
    func maxBodyBytes(for request: Request) -> Int?
    /// Whether the body of `head`, a request whose route reads bodies over the server's limit,
    /// may be read, and whose it is (`HeadCheck`); asked before any of it is read.
    func admitBody(of head: Request) -> BodyAdmission
    /// The response; never throws: every failure becomes the JSON error envelope.
    func respond(to request: Request) -> Response
    /// The answer to a request the server refuses before routing it (a malformed URL, a body
    /// or head over the limits, overload): `error.response` unless a prefix renders its own.
    func rejection(_ error: APIError, for request: Request) -> Response
}

extension HTTPResponder {
    public func rejection(_ error: APIError, for request: Request) -> Response { error.response }
    public func admitBody(of head: Request) -> BodyAdmission { .admit(holder: nil) }
}

/// The frozen router: immutable, `Sendable`, read by every server thread without locks.
///
/// Order of work for one request: make a request id and logger; match the route (404, 405);
/// run the route's middleware chain (composed once, at build time) around the handler, with the
/// route's `RoutePolicy` in the context, converting an error into its response (through
/// the error mapper) at the level it escapes, so every middleware sees the final status; add
/// `X-Request-Id`; drop the body for HEAD. A request to a route that reads large bodies meets
/// the `HeadCheck` first, from its head (`admitBody(of:)`), and the whole chain once its body
/// has arrived.
public final class Responder<Identity: Sendable>: HTTPResponder {
    typealias Chain = @Sendable (Request, RequestContext<Identity>) -> Response
    typealias ErrorAnswer = @Sendable (any Error, RequestContext<Identity>) -> Response

    let routeTable: [Route<Identity>]
    /// Each route's middleware chain around its handler, composed once in `init` (same index
    /// as `routeTable`).
    let chains: [Chain]
    /// How each route answers an error escaping it (same index as `routeTable`): its
    /// `ErrorRenderer`, else the router's mapper and envelope.
    let errorAnswers: [ErrorAnswer]
    /// Decides from the head whether a large body may be read (`RouterBuilder.add(headCheck:)`).
    let headCheck: (any HeadCheck<Identity>)?
    let root: RouteNode
    let logger: Logger
    /// Methods of the routes whose policy names a pool: any other request is
    /// answered on its serving thread without matching its route a second time.
    let pooledMethods: Set<String>
    /// Of `pooledMethods`, those whose every pooled route is a literal path (the export's
    /// `GET /v1/users/me/export`), with those paths: any other path of the method is answered
    /// on its serving thread without a match (every GET paid a second match otherwise).
    let pooledLiteralPaths: [String: Set<String>]
    /// Methods of the routes with a body limit of their own, likewise.
    let ownLimitMethods: Set<String>
    /// Who answers an unmatched request under each prefix (path segments), longest first.
    let fallbacks: [(prefix: [String], handler: FallbackHandler)]
    /// Who renders a pre-routing refusal under each prefix, longest first.
    let rejections: [(prefix: [String], render: RejectionRenderer)]

    /// Methods that are routed normally; anything else is 405 on every path.
    static var knownMethods: Set<String> { ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"] }

    init(routes: [Route<Identity>], middlewares: [any Middleware<Identity>], headCheck: (any HeadCheck<Identity>)? = nil, logger: Logger,
         mapError: @escaping ErrorMapper, fallbacks: [(prefix: [String], handler: FallbackHandler)] = [],
         rejections: [(prefix: [String], render: RejectionRenderer)] = []) {
        self.routeTable = routes
        self.headCheck = headCheck
        self.logger = logger
        self.fallbacks = fallbacks
        self.rejections = rejections
        pooledMethods = Set(routes.filter { $0.policy.pool != nil }.map(\.method))
        ownLimitMethods = Set(routes.filter { $0.policy.maxBodyBytes != nil }.map(\.method))
        var literal: [String: Set<String>] = [:]
        for method in pooledMethods {
            let pooled = routes.filter { $0.method == method && $0.policy.pool != nil }
            guard pooled.allSatisfy({ $0.parameterNames.isEmpty }) else { continue }
            literal[method] = Set(pooled.map { "/" + splitPath($0.pattern).joined(separator: "/") })
        }
        pooledLiteralPaths = literal
        root = RouteNode.build(routes.enumerated().map { (index: $0.offset, method: $0.element.method, segments: $0.element.segments) })
        // Every error, wherever it is thrown (a handler or a middleware), becomes its response
        // right where it escapes, through the one mapper: so each middleware's `next` returns the
        // response the client will get, and no layer can turn a mapped error into a 500.
        let respond: @Sendable (any Error, RequestContext<Identity>) -> Response = { error, context in
            errorResponse(for: mapError(error) ?? error, logger: context.logger)
        }
        // A route in another API's format answers its errors itself, at every level, so that a
        // middleware's refusal (a 429) comes in that format too.
        errorAnswers = routes.map { route in
            guard let renderError = route.renderError else { return respond }
            return { error, context in renderError(error, context.logger) }
        }
        chains = zip(routes, errorAnswers).map { route, respond in
            let handler = route.handler
            var next: Chain = { request, context in
                do {
                    return try handler(request, context)
                } catch {
                    return respond(error, context)
                }
            }
            for middleware in middlewares.reversed() {
                let inner = next
                next = { request, context in
                    do {
                        return try middleware.handle(request, context: context, next: inner)
                    } catch {
                        return respond(error, context)
                    }
                }
            }
            return next
        }
    }

    /// Every registered (method, pattern) with its policy, in registration order; for the tests
    /// that walk the routes (the OpenAPI document's completeness, the policy table).
    public var routes: [(method: String, pattern: String, policy: RoutePolicy)] {
        routeTable.map { (method: $0.method, pattern: $0.pattern, policy: $0.policy) }
    }

    enum Match {
        case found(Int, Parameters)
        case notFound
        case methodNotAllowed([String])
    }

    func match(method: String, path: String) -> Match {
        var captured: [String] = []
        var candidates: [(RouteNode, [String])] = []
        root.collectMatches(splitPath(path), 0, &captured, &candidates)
        let lookupMethod = method
        for (node, values) in candidates {
            if let index = node.methods[lookupMethod] ?? (method == "HEAD" ? node.methods["GET"] : nil) {
                let route = routeTable[index]
                let pairs = route.parameterNames.enumerated().map { (i, p) in (p.1, values[i]) }
                return .found(index, Parameters(pairs))
            }
        }
        if candidates.isEmpty && Self.knownMethods.contains(method) { return .notFound }
        var allowed = Set<String>()
        for (node, _) in candidates { allowed.formUnion(node.methods.keys) }
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .methodNotAllowed(allowed.sorted())
    }

    public func workerPool(for request: Request) -> WorkerPool? {
        // HEAD runs as its GET does (`match`), on the same pool.
        let method = request.method == "HEAD" ? "GET" : request.method
        guard pooledMethods.contains(method) else { return nil }
        if let paths = pooledLiteralPaths[method] {
            // The path as `splitPath` reads it: one trailing slash is the same path.
            var path = Substring(request.path)
            if path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
            guard paths.contains(String(path)) else { return nil }
        }
        guard case .found(let index, _) = match(method: request.method, path: request.path) else { return nil }
        return routeTable[index].policy.pool
    }

    public func maxBodyBytes(for request: Request) -> Int? {
        guard ownLimitMethods.contains(request.method),
              case .found(let index, _) = match(method: request.method, path: request.path) else { return nil }
        return routeTable[index].policy.maxBodyBytes
    }

    public func admitBody(of head: Request) -> BodyAdmission {
        guard let headCheck, case .found(let index, let parameters) = match(method: head.method, path: head.path) else {
            return .admit(holder: nil)
        }
        let route = routeTable[index]
        let requestID = makeRequestID()
        let context = RequestContext<Identity>(
            requestID: requestID, logger: logger.with("request_id", requestID), parameters: parameters, route: route.pattern,
            policy: route.policy)
        do {
            return .admit(holder: try headCheck.holder(of: head, context: context))
        } catch {
            var response = errorAnswers[index](error, context)
            response.headers.append(("X-Request-Id", requestID))
            return .refuse(response)
        }
    }

    public func rejection(_ error: APIError, for request: Request) -> Response {
        guard !rejections.isEmpty else { return error.response }
        let segments = splitPath(request.path)
        return rejections.first { segments.starts(with: $0.prefix) }?.render(error) ?? error.response
    }

    /// The fallback of the longest prefix `request.path` starts with, segment by segment.
    func fallback(for request: Request) -> FallbackHandler? {
        guard !fallbacks.isEmpty else { return nil }
        let segments = splitPath(request.path)
        return fallbacks.first { segments.starts(with: $0.prefix) }?.handler
    }

    public func respond(to request: Request) -> Response {
        let requestID = makeRequestID()
        let requestLogger = logger.with("request_id", requestID)
        var response: Response
        switch match(method: request.method, path: request.path) {
        case .found(let index, let parameters):
            let route = routeTable[index]
            let context = RequestContext<Identity>(
                requestID: requestID, logger: requestLogger, parameters: parameters, route: route.pattern, policy: route.policy)
            response = chains[index](request, context)
        case .notFound:
            response = fallback(for: request)?(request) ?? APIError.notFound().response
        case .methodNotAllowed(let allowed):
            response = fallback(for: request)?(request) ?? APIError.methodNotAllowed(allowed: allowed).response
        }
        response.headers.append(("X-Request-Id", requestID))
        if request.method == "HEAD" {
            response.body = []
            // Nothing of a streamed body is made for HEAD; its producer learns it was not sent.
            if var producer = response.stream?.producer {
                producer.finish(.abandoned)
                response.stream = nil
            }
        }
        return response
    }
}
