/// What likes, comments, flags, follows, moderation and devices refuse: cases a caller can act
/// on, with no client-facing words. The HTTP adapter (`APIErrors`) maps each to its status,
/// code and message.
package enum SocialError: Error, Sendable, Equatable {
    /// A text broke its rule (`TextRules`' message, which names the rule); nil field: the body.
    case validation(field: String?, message: String)
    case notFound(Missing)
    case forbidden(Refusal)
    case conflict(Conflict)
    /// A follow of oneself: bad input rather than a refusal (400).
    case selfFollow

    package enum Missing: Sendable, Equatable {
        case user, comment
    }

    /// Why an authenticated caller may not do this.
    package enum Refusal: Sendable, Equatable {
        case adminsOnly, moderatorsOnly
        case banOneself, banAdmin, banModeratorAsModerator
        case changeOwnRole
        case deleteOthersComment
        case flagOwnVideo
    }

    package enum Conflict: Sendable, Equatable {
        case alreadyFlagged
        case deviceTokenOfOtherPlatform
    }
}
