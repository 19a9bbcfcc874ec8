/// The words of a push, in English or Spanish by the device's (or account's) locale.
///
/// A pure function of what happened, so the same notification reads the same on every retry.
public enum PushText {
    public enum Kind: String, Sendable {
        case like, comment, follow
        case newVideo = "new_video"
    }

    /// "es", "es-ES", "es_MX" -> Spanish; anything else English.
    public static func isSpanish(_ locale: String?) -> Bool {
        guard let locale else { return false }
        return locale.lowercased().hasPrefix("es")
    }

    /// The body of a push.
    /// - Parameters:
    ///   - actor: who did it (display name).
    ///   - target: whom it was aimed at, when not the recipient (`aboutMe` false): the video's
    ///     owner for a like or comment, the followed person for a follow.
    ///   - videoTitle: the video's title, for a new video.
    ///   - comment: the comment's text, for a comment (cut to 100 characters).
    public static func body(_ kind: Kind, actor: String, aboutMe: Bool, target: String? = nil, videoTitle: String? = nil,
                            comment: String? = nil, locale: String?) -> String {
        let spanish = isSpanish(locale)
        let other = target ?? ""
        let quote = comment.map(Self.cut) ?? ""
        switch (kind, aboutMe) {
        case (.like, true):
            return spanish ? "A \(actor) le gusta tu vídeo." : "\(actor) likes your video."
        case (.like, false):
            return spanish ? "A \(actor) le gusta un vídeo de \(other)." : "\(actor) likes a video by \(other)."
        case (.comment, true):
            return spanish ? "\(actor) comentó tu vídeo: \(quote)" : "\(actor) commented on your video: \(quote)"
        case (.comment, false):
            return spanish ? "\(actor) comentó un vídeo de \(other): \(quote)" : "\(actor) commented on a video by \(other): \(quote)"
        case (.follow, true):
            return spanish ? "\(actor) empezó a seguirte." : "\(actor) started following you."
        case (.follow, false):
            return spanish ? "\(actor) empezó a seguir a \(other)." : "\(actor) started following \(other)."
        case (.newVideo, _):
            let title = videoTitle.map(Self.cut) ?? ""
            return spanish ? "\(actor) publicó un vídeo nuevo: \(title)" : "\(actor) posted a new video: \(title)"
        }
    }

    /// At most 100 characters, with an ellipsis when cut: a lock screen shows a line or two.
    static func cut(_ text: String) -> String {
        text.count <= 100 ? text : String(text.prefix(99)) + "…"
    }
}
