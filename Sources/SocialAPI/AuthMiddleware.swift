import Auth
import HTTP

/// Resolves `Authorization: Bearer <token>` to the caller, and refuses anonymous calls.
///
/// Who may call a route is the route's own `RoutePolicy.access`, declared where it is registered
/// (the router has no default for it): `.session` needs a session; `.public` is open (sign-up,
/// login, the mailed-link endpoints, and everything outside `/v1`); `.publicRead` is open to GET
/// with `--public-read` (rallies, videos, users and their lists; never feeds, notifications or
/// moderation).
///
/// It is also the router's `HeadCheck`: a route that reads bodies over 64 KiB (the picture
/// upload) has the session checked from the head, before any of the body is read, so anonymous
/// clients never hold an upload slot, and each caller's bodies are counted under their user id
/// (API.md: at most two in flight). The middleware checks again once the body has arrived
/// (from the half-second session cache): a session revoked meanwhile is refused then.
struct AuthMiddleware: Middleware, HeadCheck {
    typealias Identity = Accounts.Identity

    let accounts: Accounts
    let publicRead: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) -> Response) throws -> Response {
        var context = context
        context.identity = try caller(of: request, policy: context.policy)
        return next(request, context)
    }

    func holder(of head: Request, context: Context) throws -> BodyHolder? {
        try caller(of: head, policy: context.policy).map { BodyHolder($0.userID) }
    }

    /// The caller `request` names, nil for an anonymous one where `policy` lets them in; throws
    /// the 401 for a missing or invalid session where it does not.
    func caller(of request: Request, policy: RoutePolicy) throws -> Accounts.Identity? {
        let open: Bool
        switch policy.access {
        case .session: open = false
        case .public: open = true
        // GET only: a HEAD answered by the same route has always needed a session.
        case .publicRead: open = publicRead && request.method == "GET"
        }

        guard let token = Self.bearerToken(request.headers["authorization"]) else {
            if open { return nil }
            throw APIErrors.unauthorized
        }
        do {
            return try accounts.authenticate(token: token)
        } catch AuthError.invalidSession {
            // A stale token on sign-up or login must not stop the client from getting a new one.
            if open { return nil }
            throw APIErrors.invalidSession
        }
    }

    /// The token of a `Bearer` authorization header; nil when absent or of another scheme.
    /// Byte-level on purpose: it runs on every request, and Foundation's string helpers
    /// cost more than the database lookup that follows.
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == UInt8(ascii: " "),
              zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let start = bytes[scheme.count...].firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) }) else { return nil }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}
