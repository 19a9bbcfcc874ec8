import Auth
import HTTP
import Storage

/// API.md "Email verification and password reset". Asking for a mail needs mail configured
/// (else 503 `unavailable`) and counts against the mail limits; using a token does not need
/// mail, so a link an operator made with `pacenote user reset-link` works on any server.
struct AccountRecoveryRoutes {
    let accounts: Accounts
    let mail: MailQueue
    let limits: AbuseLimits

    /// Asking for a verification mail needs the session of the account it goes to; the rest are
    /// `.public`, since whoever follows a mailed link, or forgot a password, has no session.
    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.post("/v1/users/me/email-verification", policy: .session(pool: .blocking), requestVerification)
        router.post("/v1/email-verifications/confirm", policy: .public(pool: .blocking), confirmVerification)
        router.post("/v1/password-resets", policy: .public(pool: .blocking), requestReset)
        // bcrypt: off the serving threads like every route that hashes.
        router.post("/v1/password-resets/confirm", policy: .public(pool: .offload), confirmReset)
    }

    @Sendable func requestVerification(_ request: Request, _ context: Context) throws -> Response {
        let caller = try context.caller()
        try mail.requireConfigured()
        guard let account = try accounts.account(id: caller.userID) else { throw APIErrors.invalidSession }
        try limits.checkMail(to: account.email, request)
        try accounts.requestEmailVerification(caller, enqueue: mail.enqueue)
        return .noContent()
    }

    @Sendable func confirmVerification(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        try accounts.confirmEmail(token: try body.requireString("token"))
        return .noContent()
    }

    /// The same answer, after the same work, whether or not the address has an account
    /// (`Accounts.requestPasswordReset`: one queued request; the mail worker looks the address
    /// up, and mails either the link or, to an address without an account, a line saying so);
    /// the limits count the address either way.
    @Sendable func requestReset(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        let email = try body.requireString("email")
        try mail.requireConfigured()
        try queueReset(email: email, request)
        return .noContent()
    }

    /// The reset path of both APIs (the Parse facade's `POST /requestPasswordReset` too, when
    /// mail is configured): the address checked, the mail limits counted, one request queued.
    func queueReset(email: String, _ request: Request) throws {
        guard email.utf8.count <= 254, email.contains("@") else { throw APIError.validation("email", "email must be an email address.") }
        try limits.checkMail(to: email, request)
        try accounts.requestPasswordReset(email: email, locale: AccountLocale(acceptLanguage: request.headers["accept-language"]),
                                          enqueue: mail.enqueue)
    }

    @Sendable func confirmReset(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        try accounts.resetPassword(token: try body.requireString("token"), password: try body.requireString("password"))
        return .noContent()
    }
}
