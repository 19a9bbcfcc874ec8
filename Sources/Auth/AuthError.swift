/// Everything that can refuse an accounts or sessions request, in terms a caller acts on.
/// SocialAPI maps each case to its HTTP answer in one place.
public enum AuthError: Error, Sendable, Equatable {
    /// An input field broke a rule; `field` names it as the client sent it.
    case validation(field: String, message: String)
    case usernameTaken
    case emailTaken
    /// Login failed: the same answer whether or not the account exists.
    case invalidCredentials
    /// A password given to confirm an action (password change, account deletion) was wrong.
    /// Kept apart from `invalidCredentials` because it must not log the app out (403, not 401).
    case wrongPassword
    /// Too many failed logins for this login name; try again after `retryAfterSeconds`.
    case accountLocked(retryAfterSeconds: Int)
    case accountBanned
    /// The session token is unknown, expired or revoked.
    case invalidSession
    case notFound
    /// A mailed token that is unknown, used, expired or for another purpose (`invalid_token`).
    case invalidToken
    /// A provider identity not linked to any account has the email of an existing one: it is
    /// never linked by itself (409 `account_exists`, field `email`).
    case accountExists
    /// The request contradicts the account's state (an identity linked elsewhere, the last way
    /// in); the message says what to do.
    case conflict(String)
    /// A provider token given to confirm an action was refused, or names an identity not linked
    /// to the caller's account (403, like a wrong confirmation password).
    case identityNotAccepted
    /// A change that needs a fresh proof besides the session (linking a provider, a first
    /// password) came without one, or with a wrong one: 403 `invalid_credentials`, `field` the
    /// proof the account gives (`currentPassword`, or `proof` for an account without a password).
    case confirmationRefused(field: String)
}
