import Auth
import Community
import Delivery
import HTTP
import CloudHooks
import Storage

/// API.md "Accounts and sessions": sign-up, login, logout, the caller's own account, and
/// other users' public profiles. Routes that run bcrypt are `.offload`ed so they never
/// hold a serving thread.
struct AccountRoutes {
    let accounts: Accounts
    let users: UserReads
    let hooks: Hooks
    let moderation: Moderation
    /// Queues verification mails after sign-up and email changes, when mail is configured.
    let mail: MailQueue
    /// Every mail counts against the mail limits, and so does an email change (a taken address
    /// answers 409, which would otherwise be an unthrottled existence check).
    let limits: AbuseLimits
    /// A deleted account's pictures stop being served at once.
    let pictureCache: PictureCache
    /// Accounts without a password confirm changes with a provider's token.
    let tokens: ProviderTokens

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.post("/v1/users", policy: .public(limit: .signups, pool: .offload), signUp)
        router.post("/v1/sessions", policy: .public(limit: .logins, pool: .offload), logIn)
        router.delete("/v1/sessions/current", policy: .session(pool: .blocking), logOut)
        router.delete("/v1/sessions", policy: .session(pool: .blocking), logOutEverywhere)
        router.get("/v1/users/me", policy: .session, me)
        router.patch("/v1/users/me", policy: .session(pool: .blocking), updateMe)
        router.put("/v1/users/me/password", policy: .session(pool: .offload), changePassword)
        router.delete("/v1/users/me", policy: .session(pool: .offload), deleteMe)
        router.get("/v1/users/{idOrUsername}", policy: .publicRead, user)
        router.put("/v1/users/{id}/role", policy: .session(pool: .blocking), setRole)
    }

    @Sendable func signUp(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        // The app may say which language; else the one the client's requests ask for.
        let locale = try body.nonNull("locale", body.locale) ?? AccountLocale(acceptLanguage: request.headers["accept-language"])
        let email = try body.requireString("email")
        let signedIn = try accounts.signUp(
            username: try body.requireString("username"),
            email: email,
            password: try body.requireString("password"),
            displayName: try body.string("displayName"),
            locale: locale,
            created: signUpMail(to: email, request)
        )
        return .json(201, SignedInJSON(signedIn: signedIn))
    }

    /// What a sign-up runs in the new account's transaction, on `/v1` and through the Parse
    /// facade alike: the verification mail, when mail is configured. Past a mail limit the
    /// account is still made, without the mail (asked for again later with
    /// POST /v1/users/me/email-verification).
    func signUpMail(to email: String, _ request: Request) -> (Account, any DatabaseConnection) throws -> Void {
        let mayMail = mail.service != nil && limits.allowsMail(to: email, request)
        return { [mail] account, connection in
            if mayMail { try mail.verify(account, on: connection) }
        }
    }

    @Sendable func logIn(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        let signedIn = try accounts.logIn(login: try body.requireString("login"), password: try body.requireString("password"))
        return .json(201, SignedInJSON(signedIn: signedIn))
    }

    @Sendable func logOut(_ request: Request, _ context: Context) throws -> Response {
        try accounts.logOut(try context.caller())
        return .noContent()
    }

    @Sendable func logOutEverywhere(_ request: Request, _ context: Context) throws -> Response {
        try accounts.logOutEverywhere(try context.caller())
        return .noContent()
    }

    @Sendable func me(_ request: Request, _ context: Context) throws -> Response {
        try Self.me(try context.caller(), accounts)
    }

    /// 200 User(me), with the account's ways in.
    static func me(_ caller: Accounts.Identity, _ accounts: Accounts) throws -> Response {
        guard let (account, methods) = try accounts.ownAccount(id: caller.userID) else { throw APIErrors.invalidSession }
        return .json(200, UserJSON(account: account, view: .owner(methods)))
    }

    @Sendable func updateMe(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        var changes = AccountStore.ProfileChanges()
        changes.displayName = try body.nonNull("displayName", body.string)
        changes.email = try body.nonNull("email", body.string)
        if let settings = try body.nonNull("notificationSettings", body.object) {
            changes.newVideos = try settings.nonNull("newVideos", settings.bool, prefix: "notificationSettings.")
            changes.myActivity = try settings.nonNull("myActivity", settings.bool, prefix: "notificationSettings.")
            changes.followingActivity = try settings.nonNull("followingActivity", settings.bool, prefix: "notificationSettings.")
        }
        changes.locale = try body.nonNull("locale", body.locale)
        let caller = try context.caller()
        if let email = changes.email {
            try checkEmailChangeLimits(caller, to: email, request)
        }
        // The confirmation is only looked at (a provider token only checked) when the email changes.
        let confirmation = changes.email == nil ? nil : try tokens.confirmation(in: body, passwordField: "currentPassword")
        _ = try accounts.updateProfile(caller, changes, confirmation: confirmation) { account, oldEmail, connection in
            try mail.verify(account, on: connection)
            try mail.noticeEmailChanged(account, oldEmail: oldEmail, on: connection)
        }
        return try Self.me(caller, accounts)
    }

    /// An email change asks for two mails (the new address's verification, the old one's
    /// notice), each counted against both mail limits; without mail, the attempt still counts
    /// once per client address, since its answer tells whether an address is taken.
    private func checkEmailChangeLimits(_ caller: Accounts.Identity, to email: String, _ request: Request) throws {
        guard let current = try accounts.account(id: caller.userID) else { throw APIErrors.invalidSession }
        guard Validation.key(current.email) != Validation.key(email) else { return }
        guard mail.service != nil else { return try limits.check(.mailsPerIP, key: limits.clientKey(request)) }
        try limits.checkMail(to: email, request)
        try limits.checkMail(to: current.email, request)
    }

    @Sendable func changePassword(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        // Without a confirmation only an account that has no password yet sets one (API.md).
        try accounts.changePassword(
            try context.caller(),
            confirmation: try tokens.confirmation(in: body, passwordField: "currentPassword"),
            new: try body.requireString("newPassword")
        )
        return .noContent()
    }

    @Sendable func deleteMe(_ request: Request, _ context: Context) throws -> Response {
        let body = try JSONBody.parse(request)
        // The hooks cascade: the account's videos, its activities both ways, everyone's counters.
        guard let confirmation = try tokens.confirmation(in: body, passwordField: "password") else {
            throw APIError.validation("password", "Deleting the account needs password (or provider and token).")
        }
        try accounts.deleteAccount(try context.caller(), confirmation: confirmation) { account, connection, deleteRow in
            try hooks.delete(account, on: connection, write: deleteRow)
        }
        pictureCache.evict(userID: try context.caller().userID)
        return .noContent()
    }

    /// `GET /v1/users/{idOrUsername}`. The segment is read as an id first, exactly, when it has
    /// an id's shape (1 to 32 letters and digits), else or when no account has that id as a
    /// username in any case; usernames spelled like another account's id are refused where
    /// they are made (sign-up, import), so one segment never names two accounts
    /// (`AccountStore.find(idOrUsername:)`).
    @Sendable func user(_ request: Request, _ context: Context) throws -> Response {
        let key = try context.parameters.require("idOrUsername")
        guard let account = try accounts.account(idOrUsername: key) else { throw APIError.notFound("No such user.") }
        if let caller = context.identity, caller.userID == account.id {
            return try Self.me(caller, accounts)
        }
        var user = try users.user(account, for: context.identity)
        // Admins see how an account signs in (the console's users view): a support question.
        if context.identity?.role == .admin { user.waysIn = try accounts.signInMethods(userID: account.id) }
        return .json(200, user)
    }

    /// Admins only; logged in the moderation log, with the body's optional `reason`.
    @Sendable func setRole(_ request: Request, _ context: Context) throws -> Response {
        let admin = try context.admin()
        let body = try JSONBody.parse(request)
        guard let role = Role(rawValue: try body.requireString("role")) else {
            throw APIError.validation("role", "role must be one of user, moderator, admin.")
        }
        let account = try moderation.setRole(role, userKey: try context.parameters.require("id"), reason: try body.string("reason"), by: admin)
        return .json(200, try users.user(account, for: context.identity))
    }
}

extension JSONBody {
    /// `locale`: "en" or "es" (API.md User(me)).
    func locale(_ key: String) throws(APIError) -> AccountLocale? {
        guard let text = try string(key) else { return nil }
        guard let locale = AccountLocale(rawValue: text) else { throw APIError.validation(key, "\(key) must be en or es.") }
        return locale
    }

    /// A field that may be absent but, when present, must not be null: PATCH merges, and
    /// none of these fields can be erased.
    func nonNull<T>(_ key: String, _ read: (String) throws(APIError) -> T?, prefix: String = "") throws(APIError) -> T? {
        if has(key), raw[key] == .null {
            throw APIError.validation(prefix + key, "\(prefix + key) cannot be null.")
        }
        do {
            return try read(key)
        } catch {
            throw APIError(status: error.status, code: error.code, message: error.message, field: prefix + key)
        }
    }
}
