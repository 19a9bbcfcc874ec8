import Auth
import HTTP
import Storage

/// API.md "Sign in with Apple, Google and Facebook; imported social accounts": a provider's
/// token signs in (making the account the first time), and a signed-in caller links and
/// unlinks providers.
///
/// Checking a token may wait for the provider (its keys, Facebook's Graph API) up to the
/// verifiers' bound, so these routes run on the blocking pool, never on a serving thread nor
/// in front of bcrypt; no database transaction is open while they wait.
struct IdentityRoutes {
    let accounts: Accounts
    let tokens: ProviderTokens
    let mail: MailQueue
    /// Sign-ins count against `--limit-logins`; one that makes an account also against `--limit-signups`.
    let limits: AbuseLimits

    /// Each provider's sign-in path and the body field its SDK's token goes in.
    static let signIns: [(provider: IdentityProvider, tokenField: String)] = [
        (.apple, "identityToken"), (.google, "idToken"), (.facebook, "accessToken"),
    ]

    func register(on router: RouterBuilder<Accounts.Identity>) {
        for (provider, tokenField) in Self.signIns {
            router.post("/v1/sessions/\(provider.rawValue)", policy: .public(limit: .logins, pool: .blocking)) { request, context in
                try signIn(provider, tokenField: tokenField, request)
            }
        }
        router.post("/v1/users/me/identities/{provider}", policy: .session(pool: .blocking), link)
        router.delete("/v1/users/me/identities/{provider}", policy: .session(pool: .blocking), unlink)
    }

    func signIn(_ provider: IdentityProvider, tokenField: String, _ request: Request) throws -> Response {
        let body = try JSONBody.parse(request)
        let token = try body.requireString(tokenField)
        let details = Accounts.NewAccountDetails(
            username: try body.string("username"), displayName: try body.string("displayName"),
            locale: try body.nonNull("locale", body.locale) ?? AccountLocale(acceptLanguage: request.headers["accept-language"]))
        let identity = try tokens.signIn(provider, token: token, nonce: try body.string("nonce"))
        let result = try accounts.signIn(with: identity, newAccount: details) {
            try limits.check(.signups, key: limits.clientKey(request))
        }
        return .json(201, SignedInJSON(signedIn: result.signedIn, created: result.created))
    }

    @Sendable func link(_ request: Request, _ context: Context) throws -> Response {
        let caller = try context.caller()
        guard let provider = IdentityProvider(rawValue: try context.parameters.require("provider")) else {
            throw APIError.notFound("No such provider.")
        }
        guard provider != .twitter else {
            throw APIError.validation(nil, "Twitter cannot be linked: its identities only come from a Parse import.")
        }
        let body = try JSONBody.parse(request)
        let identity = try tokens.confirm(provider, token: try body.requireString("token"), nonce: try body.string("nonce"))
        // The proof besides the session (API.md): the password, or a linked provider's fresh token.
        let proof: Confirmation?
        do {
            proof = try tokens.confirmation(in: body, passwordField: "currentPassword", besideFields: false)
        } catch AuthError.identityNotAccepted {
            throw AuthError.confirmationRefused(field: "proof")
        }
        try accounts.link(identity, to: caller, proof: proof) { account, connection in
            try mail.noticeIdentityLinked(account, provider: provider, on: connection)
        }
        return try AccountRoutes.me(caller, accounts)
    }

    @Sendable func unlink(_ request: Request, _ context: Context) throws -> Response {
        let caller = try context.caller()
        guard let provider = IdentityProvider(rawValue: try context.parameters.require("provider")) else {
            throw APIError.notFound("No such provider.")
        }
        try accounts.unlink(provider, from: caller)
        return try AccountRoutes.me(caller, accounts)
    }
}
