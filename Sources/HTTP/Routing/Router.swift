import Telemetry

/// A route handler. Runs synchronously on a serving thread, or on a `WorkerPool`'s.
public typealias Handler<Identity: Sendable> = @Sendable (Request, RequestContext<Identity>) throws -> Response

/// Translates an application error to the answer a client gets; nil leaves it a 500.
public typealias ErrorMapper = @Sendable (any Error) -> APIError?

/// Writes the whole answer to an error that escaped a route's handler or middleware, for routes
/// that speak a wire format of their own instead of the router's `APIError` envelope (the Parse
/// facade's `{"code": N, "error": "..."}`). It must answer every error; the logger is the
/// request's (it carries `request_id`), and an error it cannot map goes to `logUnhandledError`.
public typealias ErrorRenderer = @Sendable (any Error, Logger) -> Response

/// Answers a request no route matched under a path prefix (`RouterBuilder.fallback`).
public typealias FallbackHandler = @Sendable (Request) -> Response
/// Renders a refusal the server makes before routing (`RouterBuilder.rejection`).
public typealias RejectionRenderer = @Sendable (APIError) -> Response

/// Collects routes and middleware at startup, then freezes into a `Responder` (Hummingbird's
/// builder/responder split) so serving threads read routing tables without locks.
///
/// Not thread-safe; use it from one thread and do not use it after `build()`.
public final class RouterBuilder<Identity: Sendable> {
    var routes: [Route<Identity>] = []
    var middlewares: [any Middleware<Identity>] = []
    var headCheck: (any HeadCheck<Identity>)?
    var logger: Logger
    let mapError: ErrorMapper
    var fallbacks: [(prefix: [String], handler: FallbackHandler)] = []
    var rejections: [(prefix: [String], render: RejectionRenderer)] = []
    var built = false

    /// `logger` is the base of every request's logger (it gains `request_id`). `mapError`
    /// turns the application's own errors into their `APIError` (nil: not an error the
    /// client may see, so 500 `internal`); HTTP knows nothing of the domain, so the
    /// application hands it this one translation.
    public init(logger: Logger = Logger(handler: NullLogHandler()), mapError: @escaping ErrorMapper = { _ in nil }) {
        self.logger = logger
        self.mapError = mapError
    }

    /// Adds middleware; they run in the order added, around every matched route.
    public func add(middleware: some Middleware<Identity>) {
        precondition(!built, "RouterBuilder used after build()")
        middlewares.append(middleware)
    }

    /// Sets who decides, from the head, whether the body of a request to a route that reads
    /// large bodies (`RoutePolicy.maxBodyBytes`) may be read (`HeadCheck`); without one, every
    /// such body is read and counted against nobody. One per router: it is the session check,
    /// which the middleware repeats once the body has arrived.
    public func add(headCheck: some HeadCheck<Identity>) {
        precondition(!built, "RouterBuilder used after build()")
        precondition(self.headCheck == nil, "RouterBuilder.add(headCheck:) called twice")
        self.headCheck = headCheck
    }

    /// Registers `handler` for `method` and `pattern` (`/v1/users/{id}/follow`) under `policy`
    /// (who may call it, the limit it counts against, the pool it runs on). Literal segments win
    /// over parameters; a trailing slash is ignored. `policy` has no default on purpose: a route
    /// cannot be registered without saying who may call it.
    public func on(_ method: String, _ pattern: String, policy: RoutePolicy, _ handler: @escaping Handler<Identity>) {
        precondition(!built, "RouterBuilder used after build()")
        routes.append(Route(method: method, pattern: pattern, policy: policy, handler: handler, renderError: nil))
    }

    /// Registers a route whose errors, wherever they escape (its handler or any middleware), are
    /// answered by `renderError` instead of the router's mapper and envelope: for a group of
    /// routes that answer in another API's format (the Parse facade), so that a rate limit's 429
    /// reaches its clients in the shape they parse too.
    public func on(_ method: String, _ pattern: String, policy: RoutePolicy, renderError: @escaping ErrorRenderer,
                   _ handler: @escaping Handler<Identity>) {
        precondition(!built, "RouterBuilder used after build()")
        routes.append(Route(method: method, pattern: pattern, policy: policy, handler: handler, renderError: renderError))
    }

    /// Answers the requests under `prefix` (`/parse`) that match no route (404 and 405 alike)
    /// with `handler` instead of the router's `not_found` and `method_not_allowed` envelopes. No
    /// middleware runs for them, as for any unmatched request. The longest matching prefix wins.
    public func fallback(prefix: String, _ handler: @escaping FallbackHandler) {
        precondition(!built, "RouterBuilder used after build()")
        fallbacks.append((prefix: splitPath(prefix), handler: handler))
    }

    /// Renders the server's pre-routing refusals (`HTTPResponder.rejection`) of requests under
    /// `prefix`, instead of the API.md envelope. The longest matching prefix wins.
    public func rejection(prefix: String, _ render: @escaping RejectionRenderer) {
        precondition(!built, "RouterBuilder used after build()")
        rejections.append((prefix: splitPath(prefix), render: render))
    }

    public func get(_ pattern: String, policy: RoutePolicy, _ handler: @escaping Handler<Identity>) {
        on("GET", pattern, policy: policy, handler)
    }

    public func post(_ pattern: String, policy: RoutePolicy, _ handler: @escaping Handler<Identity>) {
        on("POST", pattern, policy: policy, handler)
    }

    public func put(_ pattern: String, policy: RoutePolicy, _ handler: @escaping Handler<Identity>) {
        on("PUT", pattern, policy: policy, handler)
    }

    public func patch(_ pattern: String, policy: RoutePolicy, _ handler: @escaping Handler<Identity>) {
        on("PATCH", pattern, policy: policy, handler)
    }

    public func delete(_ pattern: String, policy: RoutePolicy, _ handler: @escaping Handler<Identity>) {
        on("DELETE", pattern, policy: policy, handler)
    }

    /// Freezes the routes and middleware into an immutable responder.
    public func build() -> Responder<Identity> {
        precondition(!built, "RouterBuilder.build() called twice")
        built = true
        return Responder(routes: routes, middlewares: middlewares, headCheck: headCheck, logger: logger, mapError: mapError,
                         fallbacks: fallbacks.sorted { $0.prefix.count > $1.prefix.count },
                         rejections: rejections.sorted { $0.prefix.count > $1.prefix.count })
    }
}

/// One registered route: its pattern parsed once, its policy and its handler. The responder
/// composes its middleware chain once, at build time (`Responder.chains`, same index).
struct Route<Identity: Sendable>: Sendable {
    let method: String
    let pattern: String
    let policy: RoutePolicy
    let handler: Handler<Identity>
    /// Answers the route's errors in place of the router's mapper (nil: the mapper).
    let renderError: ErrorRenderer?
    /// (segment index, parameter name) for each `{name}` segment.
    let parameterNames: [(Int, String)]
    let segments: [RouteSegment]

    init(method: String, pattern: String, policy: RoutePolicy, handler: @escaping Handler<Identity>, renderError: ErrorRenderer?) {
        self.method = method
        self.pattern = pattern
        self.policy = policy
        self.handler = handler
        self.renderError = renderError
        var names: [(Int, String)] = []
        var segments: [RouteSegment] = []
        for (i, part) in splitPath(pattern).enumerated() {
            if part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2 {
                names.append((i, String(part.dropFirst().dropLast())))
                segments.append(.parameter)
            } else {
                segments.append(.literal(part))
            }
        }
        self.parameterNames = names
        self.segments = segments
    }
}

enum RouteSegment: Sendable, Equatable {
    case literal(String)
    case parameter
}

/// Splits "/a/b/" into ["a", "b"]: leading slash and one trailing slash ignored, empty
/// segments in the middle kept (they match nothing).
///
/// Runs for every request, so it walks the bytes once and makes only the segments (ids and
/// path words fit Swift's inline small strings: no allocation each).
func splitPath(_ path: String) -> [String] {
    let bytes = path.utf8
    var parts: [String] = []
    parts.reserveCapacity(8)
    var start = bytes.startIndex
    if start != bytes.endIndex, bytes[start] == UInt8(ascii: "/") { start = bytes.index(after: start) }
    var index = start
    while index != bytes.endIndex {
        if bytes[index] == UInt8(ascii: "/") {
            parts.append(String(path[start..<index]))
            start = bytes.index(after: index)
        }
        index = bytes.index(after: index)
    }
    if start != bytes.endIndex { parts.append(String(path[start..<bytes.endIndex])) }
    return parts
}

/// Immutable routing trie. Children are literal segments first, then one parameter branch.
final class RouteNode: Sendable {
    let literals: [String: RouteNode]
    let parameter: RouteNode?
    /// Route indices by method, for routes ending at this node.
    let methods: [String: Int]

    init(literals: [String: RouteNode], parameter: RouteNode?, methods: [String: Int]) {
        self.literals = literals
        self.parameter = parameter
        self.methods = methods
    }

    /// Builds the trie for `routes`; a later duplicate (same method and shape) wins.
    static func build(_ routes: [(index: Int, method: String, segments: [RouteSegment])], depth: Int = 0) -> RouteNode {
        var methods: [String: Int] = [:]
        var literalGroups: [String: [(index: Int, method: String, segments: [RouteSegment])]] = [:]
        var parameterGroup: [(index: Int, method: String, segments: [RouteSegment])] = []
        for route in routes {
            if route.segments.count == depth {
                methods[route.method] = route.index
            } else if case .literal(let s) = route.segments[depth] {
                literalGroups[s, default: []].append(route)
            } else {
                parameterGroup.append(route)
            }
        }
        return RouteNode(
            literals: literalGroups.mapValues { build($0, depth: depth + 1) },
            parameter: parameterGroup.isEmpty ? nil : build(parameterGroup, depth: depth + 1),
            methods: methods)
    }

    /// Every node that matches `segments[depth...]`, literal branches before parameter ones,
    /// each with the captured parameter values. Cost is bounded by the trie, not the input.
    func collectMatches(_ segments: [String], _ depth: Int, _ captured: inout [String], _ out: inout [(RouteNode, [String])]) {
        if depth == segments.count {
            if !methods.isEmpty { out.append((self, captured)) }
            return
        }
        let segment = segments[depth]
        if let child = literals[segment] {
            child.collectMatches(segments, depth + 1, &captured, &out)
        }
        if let parameter, !segment.isEmpty {
            captured.append(segment)
            parameter.collectMatches(segments, depth + 1, &captured, &out)
            captured.removeLast()
        }
    }
}
