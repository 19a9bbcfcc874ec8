/// What a route asks of the middleware and of the server, declared where the route is registered
/// (`RouterBuilder.on(_:_:policy:_:)`, which has no default) and frozen with it into the
/// `Responder`. Middleware read the matched route's policy from `RequestContext.policy`: there
/// is no list of route names anywhere else to keep in step with the routes.
///
/// ```swift
/// router.get("/v1/videos/{id}", policy: .publicRead, video)
/// router.post("/v1/videos", policy: .session(limit: .writes, pool: .blocking), create)
/// ```
public struct RoutePolicy: Sendable, Equatable {
    /// Who may call the route. The application's authentication middleware enforces it; HTTP
    /// only carries it.
    public enum Access: Sendable, Equatable {
        /// Needs a signed-in caller (401 without one).
        case session
        /// Open to anyone (sign-up, login, health checks, static pages).
        case `public`
        /// Open to anyone when the server is told to let anonymous clients read (the
        /// application's `--public-read`), else as `.session`.
        case publicRead
    }

    public var access: Access
    /// The rate limit each request of the route counts against; nil: none beyond those that
    /// count every request.
    public var limit: RouteLimit?
    /// Where the handler runs; nil: the serving thread that read the request.
    public var pool: WorkerPool?
    /// The largest body the route reads, when it is not the server's own limit
    /// (`ServerConfiguration.maxBodyBytes`); a route above it also counts against
    /// `ServerConfiguration.maxLargeBodies` while its body is read and handled.
    public var maxBodyBytes: Int?

    public init(access: Access, limit: RouteLimit? = nil, pool: WorkerPool? = nil, maxBodyBytes: Int? = nil) {
        self.access = access
        self.limit = limit
        self.pool = pool
        self.maxBodyBytes = maxBodyBytes
    }

    /// `.session` with no limit, on the serving thread.
    public static let session = RoutePolicy(access: .session)
    /// `.public` with no limit, on the serving thread.
    public static let `public` = RoutePolicy(access: .public)
    /// `.publicRead` with no limit, on the serving thread.
    public static let publicRead = RoutePolicy(access: .publicRead)

    public static func session(limit: RouteLimit? = nil, pool: WorkerPool? = nil, maxBodyBytes: Int? = nil) -> RoutePolicy {
        RoutePolicy(access: .session, limit: limit, pool: pool, maxBodyBytes: maxBodyBytes)
    }

    public static func `public`(limit: RouteLimit? = nil, pool: WorkerPool? = nil, maxBodyBytes: Int? = nil) -> RoutePolicy {
        RoutePolicy(access: .public, limit: limit, pool: pool, maxBodyBytes: maxBodyBytes)
    }
}

/// A rate limit a route's requests count against, named by the application (which declares its
/// own as `static let`s in an extension) and applied by its middleware. HTTP only carries it.
public struct RouteLimit: Sendable, Hashable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    public var description: String { name }
}

/// Where a request's handler runs, when not on the serving thread that read it.
public enum WorkerPool: Sendable {
    /// Few threads, at a lower priority, for CPU-heavy work (bcrypt on sign-up and login): a
    /// serving thread multiplexes many connections, so blocking it stalls all of them.
    case offload
    /// Few threads, at a lower priority, with a short queue of their own, for decoding images
    /// (profile pictures): a burst of uploads waits here, never in front of bcrypt or a read.
    case media
    /// Many threads, for handlers that mostly wait their turn for something requests share one
    /// at a time (a database's single writer): the pool's threads wait side by side, so the
    /// serving threads keep answering other requests meanwhile.
    case blocking
}
