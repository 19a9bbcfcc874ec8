import Auth
import Community
import HTTP

/// The request context every SocialAPI route receives: HTTP's context carrying the
/// signed-in caller, resolved by `AuthMiddleware`.
typealias Context = RequestContext<Accounts.Identity>

extension RequestContext where Identity == Accounts.Identity {
    /// The signed-in caller. `AuthMiddleware` has already refused anonymous calls to
    /// routes that need a session, so this only throws for a route wrongly listed as public.
    func caller() throws(APIError) -> Accounts.Identity {
        guard let identity else { throw APIErrors.unauthorized }
        return identity
    }

    /// The caller, who must be an admin.
    func admin() throws(APIError) -> Accounts.Identity {
        let identity = try caller()
        guard identity.role == .admin else { throw APIErrors.map(.forbidden(.adminsOnly)) }
        return identity
    }
}
