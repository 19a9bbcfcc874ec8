import Community
import JSON
import Storage
import Telemetry

/// `pacenote announce --title T --body B [--title-es T --body-es B] [--send-at TIME]`: queues
/// an announcement to everyone, as `POST /v1/announcements` does (API.md "Command line"). A
/// running server's notify worker sends it at its time; printed: its id and that time.
enum AnnounceCommand {
    static let spec = CommandSpec(
        synopsis: "announce --title T --body B [--title-es T --body-es B] [--send-at TIME]",
        summary: "Queues an announcement to every user, as POST /v1/announcements does, and prints its id. "
            + "A running server sends it at its time (now without --send-at), to each reader's inbox and devices in their language.",
        flags: [
            .init("title", "T", "the English title, 1 to 100 characters"),
            .init("body", "B", "the English text, 1 to 1000 characters"),
            .init("title-es", "T", "the Spanish title, for readers whose language is Spanish"),
            .init("body-es", "B", "the Spanish text"),
            .init("send-at", "TIME", "when to send, ISO 8601 UTC such as 2026-05-01T09:00:00.000Z (now)"),
            .init("as", "USERNAME", "the admin it is sent as (the oldest admin)"),
        ] + CommonOptions.flags
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, spec: spec)
        guard let title = options.string("title"), let body = options.string("body") else {
            throw Options.UsageError(description: "announce needs --title and --body")
        }
        var sendAt: Int64?
        if let text = options.string("send-at") {
            guard let millis = ISO8601Millis.parse(text) else {
                throw Options.UsageError(description: "--send-at is an ISO 8601 UTC time such as 2026-05-01T09:00:00.000Z")
            }
            sendAt = millis
        }
        let draft = AnnouncementDraft(title: LocalizedText(en: title, es: options.string("title-es")),
                                      body: LocalizedText(en: body, es: options.string("body-es")), audience: .everyone, sendAt: sendAt)
        let announcement = try CommandDatabase.with(options) { database in
            let clock = SystemClock()
            let announcements = Announcements(database: database, notifier: Notifier(configuration: .init(), clock: clock), clock: clock)
            let author: String?
            if let username = options.string("as") {
                author = try database.read { connection in
                    try connection.fetchValue("SELECT id FROM users WHERE username_key = \(username.lowercased()) AND role = 'admin'", as: String.self)
                }
                guard author != nil else { throw Options.UsageError(description: "--as names no admin") }
            } else {
                author = try announcements.defaultAuthor()
            }
            guard let author else { throw Options.UsageError(description: "announce needs an admin account to send as: create one with pacenote user create --role admin") }
            return try announcements.create(draft, createdBy: author)
        }
        print("\(announcement.id) \(ISO8601Millis.format(millisecondsSince1970: announcement.sendAt))")
        return 0
    }
}
