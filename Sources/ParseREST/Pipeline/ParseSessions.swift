import Auth

/// Parse session tokens over Pacenote's sessions: a token is `r:` + the Pacenote session
/// token, so one session works on both APIs (`r:` is what the iOS SDK looks for before it
/// calls `/logout`, PARSE-REST.md §0 point 4), and a token without it is a legacy Parse.com
/// token, which parse-server refuses too (209).
struct ParseSessions: Sendable {
    let accounts: Accounts
    /// `serve --public-read`, the flag `/v1`'s `AuthMiddleware` reads for its `.publicRead`
    /// routes: whether anonymous clients may read (`reader`).
    let publicRead: Bool

    init(accounts: Accounts, publicRead: Bool) {
        self.accounts = accounts
        self.publicRead = publicRead
    }

    static let prefix = "r:"

    /// The Parse form of a Pacenote session token.
    static func parseToken(_ token: SessionToken) -> String { prefix + token.value }

    /// The caller the request's session token names; nil without a token. A token that is
    /// not `r:`-prefixed, or that Pacenote does not accept (unknown, expired, revoked, a
    /// banned account's) is 209, on any route, as parse-server's `handleParseSession`.
    func caller(_ request: ParseRequest) throws -> Accounts.Identity? {
        guard let token = request.sessionToken else { return nil }
        guard token.hasPrefix(Self.prefix) else { throw ParseError.invalidSession }
        return try accounts.authenticate(token: String(token.dropFirst(Self.prefix.count)))
    }

    /// As `caller`, where a session is needed (209 without one).
    func requireCaller(_ request: ParseRequest) throws -> Accounts.Identity {
        guard let identity = try caller(request) else { throw ParseError.invalidSession }
        return identity
    }

    /// The caller of a read (a find or a get, of any class, however it arrives: GET, the
    /// `_method` tunnel, a batch's sub-request). `/v1`'s rule: without `--public-read` a read
    /// needs a session, so an anonymous one is 119 (400, parse-server's status for it); with it,
    /// nil, an anonymous reader. A bad token is 209 either way, never an anonymous answer.
    func reader(_ request: ParseRequest) throws -> Accounts.Identity? {
        if let identity = try caller(request) { return identity }
        guard publicRead else { throw ParseError.readNeedsSession }
        return nil
    }
}
