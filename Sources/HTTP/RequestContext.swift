import Synchronization
import Telemetry

/// Path parameters of the matched route, e.g. `id` for `/v1/users/{id}`.
public struct Parameters: Sendable {
    var pairs: [(String, String)]

    public init(_ pairs: [(String, String)] = []) {
        self.pairs = pairs
    }

    /// The value captured for `{name}`, percent-decoded.
    public subscript(_ name: String) -> String? {
        pairs.first(where: { $0.0 == name })?.1
    }

    /// The value captured for `{name}`; 400 `bad_request` when the route has no such parameter
    /// (a programming slip surfaces as a client-visible 400 rather than a crash).
    public func require(_ name: String) throws(APIError) -> String {
        guard let value = self[name], !value.isEmpty else {
            throw APIError.badRequest("Missing path parameter \(name).")
        }
        return value
    }
}

/// Typed per-request context; `Identity` is chosen by the application (the signed-in user).
///
/// Passed explicitly down the call (there are no task-locals on libmicrohttpd's threads).
public struct RequestContext<Identity: Sendable>: Sendable {
    /// 16 random hex characters, also sent as `X-Request-Id` on every response.
    public let requestID: String
    /// Already carries `request_id` metadata.
    public var logger: Logger
    /// Path parameters of the matched route.
    public var parameters: Parameters
    /// The matched pattern, e.g. "/v1/users/{id}" ("unmatched" otherwise); the metrics label.
    public var route: String
    /// The matched route's policy, as registered (a HEAD answered by a GET route gets the GET
    /// route's). Middleware decide from it, never from the route's name.
    public let policy: RoutePolicy
    /// Set by the application's authentication middleware.
    public var identity: Identity?

    /// `policy` defaults to the strictest (`.session`, no limit, the serving thread): a context
    /// made by hand, outside the responder, opens nothing.
    public init(requestID: String, logger: Logger, parameters: Parameters = Parameters(), route: String = "unmatched",
                policy: RoutePolicy = .session, identity: Identity? = nil) {
        self.requestID = requestID
        self.logger = logger
        self.parameters = parameters
        self.route = route
        self.policy = policy
        self.identity = identity
    }
}

/// 16 lower-case hex characters, unique within the process.
///
/// Not secret (logs and the `X-Request-Id` header carry it), so no CSPRNG call per request
/// (a getrandom syscall): a counter from a random start, multiplied by an odd constant (a
/// bijection of UInt64, so distinct counts give distinct ids) to spread the digits.
func makeRequestID() -> String {
    let n = (RequestIDs.start &+ RequestIDs.count.add(1, ordering: .relaxed).newValue) &* 0x9E37_79B9_7F4A_7C15
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { digits in
        for index in 0..<16 {
            digits[index] = RequestIDs.hexDigits[Int((n >> UInt64(60 - 4 * index)) & 0xF)]
        }
        return String(decoding: digits, as: UTF8.self)
    }
}

private enum RequestIDs {
    static let start = UInt64.random(in: .min ... .max)
    static let count = Atomic<UInt64>(0)
    static let hexDigits = Array("0123456789abcdef".utf8)
}
