import Auth
import Community
import HTTP
import Storage
import Telemetry
import VideoRegistry

/// Every error a Parse route can meet, mapped to its Parse answer in this one place: the
/// domain's typed errors (the same ones SocialAPI's `APIErrors` maps for `/v1`), the query
/// translator's, storage's, and the `APIError`s of what the facade shares with `/v1` (the rate
/// limits, the password-reset path). Unmapped errors are 500 code 1, logged as every 500 is.
enum ParseErrors {
    /// The router's `ErrorRenderer` for every Parse route: errors escaping a handler or a
    /// middleware both come here.
    @Sendable static func render(_ error: any Error, logger: Logger) -> Response {
        if let mapped = map(error) {
            if mapped.status >= 500 {
                logger.error("request failed", ["status": String(mapped.status), "code": String(mapped.code?.rawValue ?? 0)])
            }
            return mapped.response
        }
        logUnhandledError(error, logger: logger)
        return ParseError(.internalServerError, "Internal server error.").response
    }

    /// The Parse answer for `error`, or nil for an internal failure.
    static func map(_ error: any Error) -> ParseError? {
        switch error {
        case let error as ParseError: return error
        case let error as ParseQueryError: return map(error)
        case let error as AuthError: return map(error)
        case let error as VideoRegistryError: return map(error)
        case let error as SocialError: return map(error)
        case let error as APIError: return map(error)
        case StorageError.busy, StorageError.connectionLost:
            // The server's state, not the client's input: a 5xx on purpose, which the SDK retries.
            return ParseError(.internalServerError, "The server is busy; try again.", status: 503, headers: [("Retry-After", "1")])
        case StorageError.unstorableText:
            return ParseError(.validationError, "Text in the request holds a NUL character.")
        default:
            return nil
        }
    }

    static func map(_ error: ParseQueryError) -> ParseError {
        switch error {
        case .invalidParameter(let name):
            return ParseError(.invalidQuery, "Invalid parameter for query: \(name)")
        case .unsupportedParameter(let name):
            return ParseError(.invalidQuery, "The query parameter \(name) is not supported by this server.")
        case .invalidValue(let parameter, let expected):
            return ParseError(.invalidQuery, "\(parameter) must be \(expected).")
        case .invalidKeyName(let name):
            return ParseError(.invalidKeyName, "Invalid key name: \(name)")
        case .unknownField(let className, let name):
            return ParseError(.invalidKeyName, "\(className) has no field \(name) this server serves.")
        case .unsupportedOperator(let field, let op):
            return ParseError(.invalidQuery, "The operator \(op) on \(field) is not supported by this server.")
        case .badConstraint(let field, let expected):
            return ParseError(.invalidQuery, "The value for \(field) must be \(expected).")
        case .unindexed(let className, let supported):
            return ParseError(.invalidQuery, "No index serves this \(className) query. Supported: \(supported).")
        case .cannotInclude(let field):
            return ParseError(.invalidQuery, "Cannot include \(field): only the pointers owner and rallyId are included, one level deep.")
        }
    }

    static func map(_ error: AuthError) -> ParseError {
        switch error {
        case .validation(let field, let message):
            return ParseError(field == "email" ? .invalidEmailAddress : .validationError, message)
        case .usernameTaken:
            return ParseError(.usernameTaken, "Account already exists for this username.")
        case .emailTaken:
            return ParseError(.emailTaken, "Account already exists for this email address.")
        case .invalidCredentials, .wrongPassword, .identityNotAccepted, .confirmationRefused:
            return ParseError(.objectNotFound, "Invalid username/password.")
        case .accountLocked(let seconds):
            // parse-server's account lockout answers 101 too (AccountLockout.js).
            return ParseError(.objectNotFound, "Your account is locked due to multiple failed login attempts. Please try again later.",
                              headers: [("Retry-After", String(seconds))])
        case .accountBanned:
            return ParseError(.operationForbidden, "This account has been banned.")
        case .invalidSession:
            return .invalidSession
        case .notFound:
            return .objectNotFound
        case .invalidToken:
            return ParseError(.validationError, "This link is unknown, used or expired; ask for a new one.")
        case .accountExists:
            return ParseError(.emailTaken, "Account already exists for this email address.")
        case .conflict(let message):
            return ParseError(.validationError, message)
        }
    }

    static func map(_ error: VideoRegistryError) -> ParseError {
        switch error {
        case .validation(_, let message): return ParseError(.validationError, message)
        case .invalidYouTubeID: return ParseError(.validationError, "That is not a YouTube video id or link.")
        case .duplicateVideo: return ParseError(.duplicateValue, "That YouTube video is already registered.")
        case .notFound: return .objectNotFound
        case .forbidden(let message): return ParseError(.operationForbidden, message)
        case .conflict(let message): return ParseError(.validationError, message)
        }
    }

    static func map(_ error: SocialError) -> ParseError {
        switch error {
        case .validation(_, let message): return ParseError(.validationError, message)
        case .selfFollow: return ParseError(.validationError, "You cannot follow yourself.")
        case .notFound: return .objectNotFound
        case .forbidden: return ParseError(.operationForbidden, "Permission denied for this action.")
        case .conflict: return ParseError(.duplicateValue, "That already exists.")
        }
    }

    /// A refusal the server makes before routing, with its status kept (413, 414, 431, 503):
    /// 116 for a body too large, 1 for overload (a 503 the SDK retries, as it should), else 107.
    static func rejection(_ error: APIError) -> ParseError {
        switch error.status {
        case 413: return ParseError(.objectTooLarge, "Request body is too large.", status: 413)
        case 500...: return ParseError(.internalServerError, error.message, status: error.status, headers: error.headers)
        default: return ParseError(.invalidJSON, error.message, status: error.status, headers: error.headers)
        }
    }

    /// The `/v1`-format errors of the paths the facade shares with `/v1` (rate limits, the
    /// reset path's checks, the server's own refusals), by their status and code.
    static func map(_ error: APIError) -> ParseError {
        switch (error.status, error.code) {
        case (429, _):
            return ParseError(.connectionFailed, "Too many requests.", headers: error.headers)
        case (413, _):
            return ParseError(.objectTooLarge, "Request body is too large.")
        case (400, "validation_failed") where error.field == "email":
            return ParseError(.invalidEmailAddress, "Email address format is invalid.")
        case (400, "validation_failed"):
            return ParseError(.validationError, error.message)
        case (400, _):
            return ParseError(.invalidJSON, error.message)
        case (401, _):
            return .invalidSession
        case (403, _):
            return ParseError(.operationForbidden, error.message)
        case (404, _):
            return .objectNotFound
        case (500..., _):
            return ParseError(.internalServerError, error.message, status: error.status, headers: error.headers)
        default:
            return ParseError(.validationError, error.message)
        }
    }
}
