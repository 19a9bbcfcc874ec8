/// A text an operator wrote in English and, optionally, Spanish.
package struct LocalizedText: Sendable, Equatable {
    package let en: String
    package let es: String?

    package init(en: String, es: String?) {
        self.en = en
        self.es = es
    }

    /// The words for a reader whose locale is `locale`: Spanish for `es`, `es-ES`, `es_MX`...
    /// when there are Spanish words, else English (API.md: the reader's locale, English fallback).
    package func text(for locale: String?) -> String {
        guard let es, locale?.lowercased().hasPrefix("es") == true else { return en }
        return es
    }
}

/// Who an announcement reaches.
package enum Audience: Sendable, Equatable {
    /// Every account that is not banned.
    case everyone
    /// Everyone who posted, liked or commented on one of the rally's videos (not banned).
    case rally(id: String)

    package var rallyID: String? {
        if case .rally(let id) = self { return id }
        return nil
    }
}

/// An operator's announcement (API.md "Announcements and alerts"), as stored.
package struct Announcement: Sendable, Equatable {
    package let seq: Int64
    package let id: String
    package let title: LocalizedText
    package let body: LocalizedText
    package let audience: Audience
    /// When it goes out (milliseconds since 1970).
    package let sendAt: Int64
    /// When it was claimed and its fan-out began; nil while it may still be cancelled.
    package let sentAt: Int64?
    /// The admin who wrote it (the inbox rows' actor).
    package let createdBy: String
    package let createdAt: Int64
}

/// What an admin asks for, before validation (`Announcements.create`).
package struct AnnouncementDraft: Sendable, Equatable {
    package var title: LocalizedText
    package var body: LocalizedText
    package var audience: Audience
    /// Nil: now.
    package var sendAt: Int64?

    package init(title: LocalizedText, body: LocalizedText, audience: Audience, sendAt: Int64?) {
        self.title = title
        self.body = body
        self.audience = audience
        self.sendAt = sendAt
    }
}

/// What announcements refuse, with no client-facing words (`APIErrors` maps them).
package enum AnnouncementError: Error, Sendable, Equatable {
    /// A field broke its rule; `message` names the rule.
    case validation(field: String, message: String)
    case notFound
    /// It was sent (or its sending began): too late to cancel.
    case alreadySent
    case adminsOnly
}
