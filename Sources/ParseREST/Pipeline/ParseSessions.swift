import Auth

/// Parse session tokens over Pacenote's sessions: a token is `r:` + the Pacenote session
/// token, so one session works on both APIs (`r:` is what the iOS SDK looks for before it
/// calls `/logout`, PARSE-REST.md §0 point 4), and a token without it is a legacy Parse.com
/// token, which parse-server refuses too (209).
struct ParseSessions: Sendable {
    let accounts: Accounts

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
}
