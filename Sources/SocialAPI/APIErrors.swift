import Auth
import Community
import Crypto
import HTTP
import Imaging
import Storage
import VideoRegistry

/// Every domain error mapped to its HTTP answer, in one place (API.md "Errors").
/// Anything not mapped here becomes 500 `internal`, logged with the request id.
enum APIErrors {
    static let unauthorized = APIError(status: 401, code: "unauthorized", message: "Sign in to do that.")
    static let invalidSession = APIError(status: 401, code: "invalid_session", message: "Your session has ended; sign in again.")

    static func forbidden(_ message: String) -> APIError {
        APIError(status: 403, code: "forbidden", message: message)
    }

    /// Translates a thrown error to the client's answer, or returns nil for HTTP's 500.
    static func map(_ error: any Error) -> APIError? {
        switch error {
        case let error as APIError:
            return error
        case let error as AuthError:
            return map(error)
        case let error as VideoRegistryError:
            return map(error)
        case let error as SocialError:
            return map(error)
        case let error as CursorError:
            return map(error)
        case let error as SyncError:
            return map(error)
        case let error as AnnouncementError:
            return map(error)
        case let error as ImagingError:
            return map(error)
        case let error as IdentityVerificationError:
            return map(error)
        case StorageError.busy:
            return APIError(status: 503, code: "unavailable", message: "The server is busy; try again.", headers: [("Retry-After", "1")])
        case StorageError.unstorableText:
            // Only a client's text can hold a NUL (PostgreSQL cannot store it; such text names
            // nothing stored either), so it is bad input, not the server's failure.
            return .badRequest("Text in the request holds a NUL character.")
        case StorageError.connectionLost:
            // The database server went away (a restart, a failover): the request can be retried
            // as is once a new connection is up, which the pool makes on next use.
            return APIError(status: 503, code: "unavailable", message: "The database is unreachable; try again.", headers: [("Retry-After", "1")])
        default:
            return nil
        }
    }

    static func map(_ error: AuthError) -> APIError {
        switch error {
        case .validation(let field, let message):
            return .validation(field, message)
        case .usernameTaken:
            return APIError(status: 409, code: "username_taken", message: "That username is taken.", field: "username")
        case .emailTaken:
            return APIError(status: 409, code: "email_taken", message: "That email address is already registered.", field: "email")
        case .invalidCredentials:
            return APIError(status: 401, code: "invalid_credentials", message: "Wrong login or password.")
        case .wrongPassword:
            // 403, not 401: a wrong confirmation password must not log the app out.
            return APIError(status: 403, code: "invalid_credentials", message: "The password is not correct.")
        case .accountLocked(let seconds):
            return APIError(status: 429, code: "account_locked", message: "Too many failed logins; try again later.",
                            headers: [("Retry-After", String(seconds))])
        case .accountBanned:
            return APIError(status: 403, code: "account_banned", message: "This account has been banned.")
        case .invalidSession:
            return invalidSession
        case .notFound:
            return .notFound()
        case .invalidToken:
            return APIError(status: 400, code: "invalid_token", message: "This link is unknown, used or expired; ask for a new one.", field: "token")
        case .accountExists:
            return APIError(status: 409, code: "account_exists",
                            message: "An account with this email exists; sign in with its password, then link this provider.", field: "email")
        case .conflict(let message):
            return APIError(status: 409, code: "conflict", message: message)
        case .identityNotAccepted:
            // 403, not 401, as for a wrong confirmation password: the app stays signed in.
            return APIError(status: 403, code: "invalid_credentials", message: "The sign-in token was not accepted.")
        case .confirmationRefused(let field):
            let message = field == "proof" ? "This needs proof: a fresh sign-in token of a provider linked to the account."
                                           : "This needs the account's current password."
            return APIError(status: 403, code: "invalid_credentials", message: message, field: field)
        }
    }

    /// A provider token that was not checked: the refusals are `AuthError`s (`ProviderTokens`).
    static func map(_ error: IdentityVerificationError) -> APIError {
        switch error {
        case .invalidToken:
            return APIError(status: 401, code: "invalid_credentials", message: "The sign-in token was not accepted.")
        case .unavailable:
            return APIError(status: 503, code: "unavailable", message: "The sign-in provider did not answer; try again.",
                            headers: [("Retry-After", "5")])
        case .notConfigured:
            return APIError(status: 503, code: "unavailable", message: "This sign-in provider is not set up on this server.")
        }
    }

    static func map(_ error: ImagingError) -> APIError {
        let message = switch error {
        case .unsupportedFormat:
            "That is not a picture this server reads: send a JPEG, PNG, WebP or HEIC photo."
        case .tooManyPixels(let width, let height):
            "The picture is \(width) x \(height) pixels; at most \(Imaging.maxPixels / 1_000_000) million are accepted."
        case .typeMismatch(let declared, let detected):
            "The body is \(name(detected)), but its Content-Type says \(declared.mediaTypes[0]): send it as \(detected.mediaTypes[0])."
        case .tooManyBytes(let bytes):
            "The picture would take \(bytes / 1_000_000) MB once decoded; at most \(Imaging.maxDecodedBytes / 1_000_000) MB are accepted."
        case .codedSizeMismatch(let width, let height, let codedWidth, let codedHeight):
            "The picture's header says \(width) x \(height) pixels but its image data is \(codedWidth) x \(codedHeight)."
        case .undecodable:
            "The picture cannot be read: it is truncated or damaged."
        }
        return APIError(status: 400, code: "invalid_image", message: message)
    }

    /// A format as a message names it.
    private static func name(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "a JPEG"
        case .png: "a PNG"
        case .webp: "a WebP"
        case .heif: "a HEIC"
        }
    }

    static func map(_ error: VideoRegistryError) -> APIError {
        switch error {
        case .validation(let field, let message):
            return .validation(field, message)
        case .invalidYouTubeID:
            return APIError(status: 400, code: "invalid_youtube_id", message: "That is not a YouTube video id or link.", field: "youtubeId")
        case .duplicateVideo:
            return APIError(status: 409, code: "duplicate_video", message: "That YouTube video is already registered.", field: "youtubeId")
        case .notFound:
            return .notFound()
        case .forbidden(let message):
            return forbidden(message)
        case .conflict(let message):
            return APIError(status: 409, code: "conflict", message: message)
        }
    }

    static func map(_ error: CursorError) -> APIError {
        map(error, field: "cursor")
    }

    /// `field` names the parameter that held it: `cursor` for lists, `since` for the change log.
    static func map(_ error: CursorError, field: String) -> APIError {
        let message = switch error {
        case .unreadable: "The cursor is not valid for this list; start again from the first page."
        case .foreignShape: "That cursor does not belong to this list."
        }
        return APIError(status: 400, code: "invalid_cursor", message: message, field: field)
    }

    static func map(_ error: SyncError) -> APIError {
        switch error {
        case .expired:
            return APIError(status: 410, code: "sync_expired",
                            message: "Changes this far back are no longer kept; sync again from the beginning, without since.", field: "since")
        }
    }

    static func map(_ error: AnnouncementError) -> APIError {
        switch error {
        case .validation(let field, let message):
            return .validation(field, message)
        case .notFound:
            return .notFound("No such announcement.")
        case .alreadySent:
            return APIError(status: 409, code: "conflict", message: "This announcement has been sent; it can no longer be cancelled.")
        case .adminsOnly:
            return forbidden(message(.adminsOnly))
        }
    }

    static func map(_ error: SocialError) -> APIError {
        switch error {
        case .validation(let field, let message):
            return .validation(field, message)
        case .selfFollow:
            return .validation(nil, "You cannot follow yourself.")
        case .notFound(.user):
            return .notFound("No such user.")
        case .notFound(.comment):
            return .notFound("No such comment.")
        case .forbidden(let refusal):
            return forbidden(message(refusal))
        case .conflict(.alreadyFlagged):
            return APIError(status: 409, code: "conflict", message: "You have already flagged this video.")
        case .conflict(.deviceTokenOfOtherPlatform):
            return APIError(status: 409, code: "conflict", message: "This device token is registered for another platform.")
        }
    }

    private static func message(_ refusal: SocialError.Refusal) -> String {
        switch refusal {
        case .adminsOnly: "Only admins can do that."
        case .moderatorsOnly: "Only moderators and admins can do that."
        case .banOneself: "You cannot ban or unban yourself."
        case .banAdmin: "Admins cannot be banned; an admin can make them a moderator first."
        case .banModeratorAsModerator: "Only admins can ban or unban moderators."
        case .changeOwnRole: "You cannot change your own role."
        case .deleteOthersComment: "Only the comment's author, the video's owner or a moderator can delete it."
        case .flagOwnVideo: "You cannot flag your own video."
        }
    }
}
