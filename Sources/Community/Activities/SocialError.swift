/// What likes, comments, flags and follows refuse; mapped to HTTP in APIErrors.
package enum SocialError: Error, Sendable, Equatable {
    case validation(field: String?, message: String)
    case notFound(String)
    case forbidden(String)
    case conflict(String)
}
