/// Everything VideoRegistry refuses, in terms a caller acts on; SocialAPI maps each to HTTP.
public enum VideoRegistryError: Error, Sendable, Equatable {
    /// An input field broke a rule; `field` names it as the client sent it.
    case validation(field: String, message: String)
    case invalidYouTubeID
    case duplicateVideo
    case notFound
    case forbidden(String)
    /// The write would leave data inconsistent (a rally still referenced by videos).
    case conflict(String)
}
