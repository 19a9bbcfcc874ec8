import Community
import Auth
import HTTP

/// Resolves `Authorization: Bearer <token>` to the caller, and refuses anonymous calls.
///
/// Secure by default: every `/v1` route needs a session except those listed in
/// `publicRoutes` (sign-up and login), plus, with `--public-read`, the GET routes in
/// `publicReadRoutes`. A new route is therefore protected without anyone remembering to.
struct AuthMiddleware: Middleware {
    typealias Identity = Accounts.Identity

    static let publicRoutes: Set<String> = Set(["POST /v1/users", "POST /v1/sessions"]).union(AccountRecoveryRoutes.publicRoutes)
    /// Rallies, videos, users and their lists; never feeds, notifications or moderation.
    static let publicReadRoutes: Set<String> = [
        "GET /v1/users/{idOrUsername}", "GET /v1/users/{id}/videos", "GET /v1/users/{id}/followers",
        "GET /v1/users/{id}/following", "GET /v1/rallies", "GET /v1/rallies/{id}", "GET /v1/rallies/{id}/days/{n}/videos",
        "GET /v1/videos/{id}", "GET /v1/videos/{id}/likes", "GET /v1/videos/{id}/comments",
    ]

    let accounts: Accounts
    let publicRead: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) -> Response) throws -> Response {
        var context = context
        let route = context.routeKey
        let open = !context.route.hasPrefix("/v1/")
            || Self.publicRoutes.contains(route)
            || (publicRead && Self.publicReadRoutes.contains(route))

        if let token = Self.bearerToken(request.headers["authorization"]) {
            do {
                context.identity = try accounts.authenticate(token: token)
            } catch AuthError.invalidSession {
                // A stale token on sign-up or login must not stop the client from getting a new one.
                if !open { throw APIErrors.invalidSession }
            }
        } else if !open {
            throw APIErrors.unauthorized
        }
        return next(request, context)
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
