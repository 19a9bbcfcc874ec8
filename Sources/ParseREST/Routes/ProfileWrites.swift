import Auth
import HTTP
import JSON

/// `PUT /users/<id>` and `PUT /classes/_User/<id>` (the iOS SDK saves the current user on the
/// `classes` path): the caller's profile, through `Accounts.updateProfile`, the call `/v1`'s
/// `PATCH /v1/users/me` makes. 200 `{updatedAt}`.
///
/// As parse-server with its default `_User` ACL (everyone reads, only the user writes):
/// without a session 206 "Cannot modify user", another user's object 101.
///
/// `displayName` changes. A Parse client may send the whole object back (qs-parse-rest does),
/// so a field equal to its stored value is accepted, and the fields the server owns
/// (`emailVerified`, the pictures, `sessionToken`, `ACL`, ...) are dropped. A changed `email`
/// or `password` is 119: on Pacenote both need the current password (a stolen session must not
/// become a takeover), which no Parse SDK sends; the app sends users to `/requestPasswordReset`,
/// or `/v1`'s endpoints do it. A changed `username` is 119: Pacenote usernames are permanent.
struct ProfileWrites: Sendable {
    let sessions: ParseSessions
    let reads: ClassReads
    let countWrite: @Sendable (String) throws -> Void

    static let dropped: Set<String> = [
        "ACL", "emailVerified", "sessionToken", "profilePictureMedium", "profilePictureSmall", "authData", "createdAt", "updatedAt",
    ]

    @Sendable func update(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let id = try parameters.require("objectId")
        guard let identity = try sessions.caller(request) else {
            throw ParseError(.sessionMissing, "Cannot modify user \(id).")
        }
        guard id == identity.userID else { throw ParseError.objectNotFound }
        try countWrite(identity.userID)
        guard let account = try sessions.accounts.account(id: identity.userID) else { throw ParseError.invalidSession }
        var changes = AccountStore.ProfileChanges()
        for name in request.body.keys.sorted() {
            guard let value = request.body[name], !Self.dropped.contains(name) else { continue }
            switch name {
            case "displayName":
                guard let text = value.stringValue else { throw Self.mismatch(name, value) }
                changes.displayName = text
            case "username":
                guard let text = value.stringValue else { throw Self.mismatch(name, value) }
                guard text == account.username else { throw ParseError(.operationForbidden, "A username cannot be changed on this server.") }
            case "email":
                guard let text = value.stringValue else { throw Self.mismatch(name, value) }
                guard Validation.key(text) == Validation.key(account.email) else {
                    throw ParseError(.operationForbidden, "Changing the email needs the current password: the app changes it through /v1 (PATCH /v1/users/me).")
                }
            case "password":
                throw ParseError(.operationForbidden, "Changing the password needs the current password: use /requestPasswordReset, or /v1 (PUT /v1/users/me/password).")
            case "objectId":
                guard value.stringValue == id else { throw ParseError(.invalidKeyName, "objectId is an invalid field name.") }
            default:
                do { try ParseQuery.checkKeyName(name) } catch { throw ParseErrors.map(error) }
                throw ParseError(.invalidKeyName, "_User has no field \(name) this server writes.")
            }
        }
        if changes.displayName != nil { _ = try sessions.accounts.updateProfile(identity, changes) }
        let updatedAt = try reads.user(id: identity.userID)?.updatedAt ?? account.createdAt
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        writer.field("updatedAt", timestampMillis: updatedAt)
        writer.endObject()
        return .json(200, writer: writer)
    }

    private static func mismatch(_ name: String, _ value: JSONValue) -> ParseError {
        ParseError(.incorrectType, "schema mismatch for _User.\(name); expected String")
    }
}
