import Foundation

/// The text of a push, in English or Spanish. Pure: the caller passes names and content.
package enum PushText {
    /// Comments are quoted up to this many characters, then "…": a lock screen shows two lines.
    package static let maxQuotedCharacters = 100

    /// The push body.
    ///
    /// - Parameters:
    ///   - actorName: who acted (display name, else username).
    ///   - otherName: for activity by someone the reader follows (`isAboutMe == false`), whose
    ///     video was liked or commented on, or who was followed.
    ///   - isAboutMe: the activity was aimed at the reader ("your video", "you"); false for
    ///     following activity. Ignored for `.newVideo`.
    ///   - locale: the installation's locale; `es`, `es-ES`, `es_MX`... are Spanish, anything
    ///     else English.
    package static func body(
        kind: NotificationKind, actorName: String, otherName: String? = nil, videoTitle: String? = nil,
        commentText: String? = nil, locale: String?, isAboutMe: Bool
    ) -> String {
        let spanish = isSpanish(locale)
        let other = otherName.flatMap { $0.isEmpty ? nil : $0 }
        let title = videoTitle.flatMap { $0.isEmpty ? nil : $0 }
        let comment = commentText.map(quoted).flatMap { $0.isEmpty ? nil : $0 }
        let a = actorName
        switch (kind, spanish) {
        case (.like, false):
            if isAboutMe { return "\(a) likes your video." }
            return other.map { "\(a) likes a video by \($0)." } ?? "\(a) likes a video."
        case (.like, true):
            if isAboutMe { return "A \(a) le gusta tu vídeo." }
            return other.map { "A \(a) le gusta un vídeo de \($0)." } ?? "A \(a) le gusta un vídeo."
        case (.comment, false):
            let target = isAboutMe ? "your video" : other.map { "a video by \($0)" } ?? "a video"
            return comment.map { "\(a) commented on \(target): \($0)" } ?? "\(a) commented on \(target)."
        case (.comment, true):
            let target = isAboutMe ? "tu vídeo" : other.map { "un vídeo de \($0)" } ?? "un vídeo"
            return comment.map { "\(a) comentó \(target): \($0)" } ?? "\(a) comentó \(target)."
        case (.follow, false):
            if isAboutMe { return "\(a) started following you." }
            return other.map { "\(a) started following \($0)." } ?? "\(a) started following someone."
        case (.follow, true):
            if isAboutMe { return "\(a) empezó a seguirte." }
            return other.map { "\(a) empezó a seguir a \($0)." } ?? "\(a) empezó a seguir a alguien."
        case (.newVideo, false):
            return title.map { "\(a) posted a new video: \($0)" } ?? "\(a) posted a new video."
        case (.newVideo, true):
            return title.map { "\(a) publicó un vídeo nuevo: \($0)" } ?? "\(a) publicó un vídeo nuevo."
        case (.announcement, _):
            // The operator's words, not ours: the caller picks them in the reader's language
            // (`LocalizedText`) and passes the body as `commentText`, whole.
            return commentText ?? ""
        }
    }

    /// The body of `pacenote push test`'s push.
    package static func test(locale: String?) -> String {
        isSpanish(locale) ? "Notificación de prueba." : "Test notification."
    }

    /// `es`, `es-ES`, `es_MX`... are Spanish; anything else, or no locale, is English.
    private static func isSpanish(_ locale: String?) -> Bool {
        locale?.lowercased().hasPrefix("es") ?? false
    }

    /// The comment on one line, cut at `maxQuotedCharacters` with "…".
    package static func quoted(_ text: String) -> String {
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        guard oneLine.count > maxQuotedCharacters else { return oneLine }
        return oneLine.prefix(maxQuotedCharacters).trimmingCharacters(in: .whitespaces) + "…"
    }
}
