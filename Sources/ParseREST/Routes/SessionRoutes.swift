import Auth
import HTTP
import JSON
import VideoRegistry

/// Sign-up, login, logout, the current user and password resets (PARSE-REST.md §1.3, §2.2):
/// Accounts does the work, as for `/v1`; this only reads Parse's parameters and writes
/// Parse's answers. Routes that run bcrypt are on the offload pool, as `/v1`'s.
struct SessionRoutes {
    let sessions: ParseSessions
    let reads: ClassReads
    let mail: ParseFacade.AccountMail
    let limits: ParseFacade.Limits
    let profile: ProfileWrites

    var endpoints: [ParseEndpoint] {
        let signUp = RoutePolicy.public(limit: limits.signups, pool: .offload)
        let logIn = RoutePolicy.public(limit: limits.logins, pool: .offload)
        return [
            // GET /users is a find on _User; POST /users, a sign-up.
            ParseEndpoint("/users", ["POST": (self.signUp, signUp), "GET": (ClassRoutes.find(ParseSchema.user, sessions, reads), .public)]),
            ParseEndpoint("/login", ["GET": (self.logIn, logIn), "POST": (self.logIn, logIn)]),
            ParseEndpoint("/logout", ["POST": (logOut, .public(pool: .blocking))]),
            ParseEndpoint("/users/me", ["GET": (me, .public)]),
            ParseEndpoint("/users/{objectId}", [
                "GET": (ClassRoutes.get(ParseSchema.user, sessions, reads), .public),
                "PUT": (profile.update, .public(pool: .blocking)),
            ]),
            ParseEndpoint("/requestPasswordReset", ["POST": (requestPasswordReset, .public(pool: .blocking))]),
        ]
    }

    /// 201 `{objectId, createdAt, sessionToken}`. Pacenote accounts need an email, which
    /// Parse's did not: without one, 204.
    @Sendable func signUp(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        if request.body["authData"] != nil {
            throw ParseError(.unsupportedService, "Signing up with authData is not supported by this server; use a username and password.")
        }
        guard let username = request.body["username"]?.stringValue, !username.isEmpty else {
            throw ParseError(.usernameMissing, "bad or missing username")
        }
        guard let password = request.body["password"]?.stringValue, !password.isEmpty else {
            throw ParseError(.passwordMissing, "password is required")
        }
        guard let email = request.body["email"]?.stringValue, !email.isEmpty else {
            throw ParseError(.emailMissing, "you must provide an email")
        }
        let displayName: String?
        switch request.body["displayName"] {
        case nil, .null?: displayName = nil
        case .string(let name)?: displayName = name
        default: throw ParseError(.validationError, "displayName must be a string.")
        }
        let signedIn = try sessions.accounts.signUp(
            username: username, email: email, password: password, displayName: displayName,
            locale: AccountLocale(acceptLanguage: request.http.headers["accept-language"]),
            created: mail.onSignUp(email, request.http))
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("objectId", signedIn.account.id)
        writer.field("createdAt", timestampMillis: signedIn.account.createdAt)
        writer.field("sessionToken", ParseSessions.parseToken(signedIn.token))
        writer.endObject()
        return .json(201, writer: writer)
    }

    /// The user with `sessionToken`. Credentials come from the body or the query string (the
    /// raw strings: a password of digits stays text); a username is also matched as an email,
    /// as parse-server's `$or` does and Accounts' login does. A session token sent with the
    /// request is ignored here, as parse-server ignores it on `/login`.
    @Sendable func logIn(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let username = request.body["username"]?.stringValue ?? request.http.query["username"]
        let password = request.body["password"]?.stringValue ?? request.http.query["password"]
        guard let username, !username.isEmpty else { throw ParseError(.usernameMissing, "username/email is required.") }
        guard let password, !password.isEmpty else { throw ParseError(.passwordMissing, "password is required.") }
        let signedIn = try sessions.accounts.logIn(login: username, password: password)
        return try currentUser(id: signedIn.account.id, token: ParseSessions.parseToken(signedIn.token))
    }

    /// `{}`; with no token too (parse-server). A token that is not a session is 209.
    @Sendable func logOut(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        if let identity = try sessions.caller(request) { try sessions.accounts.logOut(identity) }
        return Self.empty
    }

    /// The caller with their session token (the SDK's `become`).
    @Sendable func me(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let identity = try sessions.requireCaller(request)
        guard let token = request.sessionToken else { throw ParseError.invalidSession }
        return try currentUser(id: identity.userID, token: token)
    }

    /// `{}` whatever the address, after `/v1`'s reset path (which mails a link, or a line saying
    /// no account has the address, and counts the mail limits). Without an address, 204.
    @Sendable func requestPasswordReset(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        guard let email = request.parameters["email"]?.stringValue, !email.isEmpty else {
            throw ParseError(.emailMissing, "you must provide an email")
        }
        try mail.requestPasswordReset(email, request.http)
        return Self.empty
    }

    private func currentUser(id: String, token: String) throws -> Response {
        guard let row = try reads.user(id: id) else { throw ParseError.invalidSession }
        var writer = JSONWriter(capacity: 512)
        ParseObjects.writeUser(row, callerID: id, sessionToken: token, to: &writer)
        return .json(200, writer: writer)
    }

    static var empty: Response {
        var writer = JSONWriter(capacity: 2)
        writer.beginObject()
        writer.endObject()
        return .json(200, writer: writer)
    }
}
