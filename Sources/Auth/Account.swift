import Storage

/// What a user may do beyond their own data.
public enum Role: String, Sendable, CaseIterable {
    case user
    case moderator
    case admin

    /// Moderators and admins see hidden content and act on flags.
    public var canModerate: Bool { self != .user }
}

/// Which notifications a user receives (API.md "Notifications").
public struct NotificationSettings: Sendable, Equatable {
    public var newVideos: Bool
    public var myActivity: Bool
    public var followingActivity: Bool

    public static let defaults = NotificationSettings(newVideos: true, myActivity: true, followingActivity: false)

    public init(newVideos: Bool, myActivity: Bool, followingActivity: Bool) {
        self.newVideos = newVideos
        self.myActivity = myActivity
        self.followingActivity = followingActivity
    }
}

/// The languages Pacenote writes mails (and pushes) in.
public enum AccountLocale: String, Sendable, CaseIterable {
    case english = "en"
    case spanish = "es"

    /// The first language of an `Accept-Language` header that Pacenote speaks, by its
    /// primary tag (`es-MX` is Spanish), honouring `q` weights; English when none matches.
    public init(acceptLanguage header: String?) {
        guard let header else { self = .english; return }
        var best: (AccountLocale, Double)?
        for part in header.split(separator: ",").prefix(32) {
            let fields = part.split(separator: ";")
            guard let tag = fields.first.map({ Self.trimmed($0).lowercased() }) else { continue }
            var weight = 1.0
            for parameter in fields.dropFirst() {
                let pair = Self.trimmed(parameter)
                if pair.hasPrefix("q="), let q = Double(pair.dropFirst(2)), q.isFinite { weight = q }
            }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            guard weight > 0, let locale = AccountLocale(rawValue: primary) else { continue }
            if best.map({ weight > $0.1 }) ?? true { best = (locale, weight) }
        }
        self = best?.0 ?? .english
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

/// One account as the domain sees it. The password hash is deliberately not part of it,
/// so no code path that renders an account can leak it.
public struct Account: Sendable, Equatable {
    public let id: String
    public var username: String
    public var email: String
    public var emailVerified: Bool
    public var displayName: String
    /// The key of the account's profile picture (its renditions are named from it), nil when
    /// it has none.
    public var picture: String?
    public var role: Role
    public var notificationSettings: NotificationSettings
    public var followersCount: Int
    public var followingCount: Int
    public var videosCount: Int
    public var createdAt: Int64
    public var bannedAt: Int64?
    /// The language of the account's mails and pushes (API.md User(me) `locale`).
    public var locale: AccountLocale = .english

    /// Whether mail can reach the account: an account made without an address (a provider that
    /// did not vouch for one, an import without one) keeps a stand-in under `.invalid`, a
    /// top-level domain reserved never to exist (RFC 2606).
    public var hasMailbox: Bool { !email.lowercased().hasSuffix(".invalid") }

    public var isBanned: Bool { bannedAt != nil }
}

extension Account {
    /// The columns `init(row:)` reads, qualified by the table name so that joins (search)
    /// can select them beside columns of the same name.
    public static let columns: SQL = """
        users.id, users.username, users.email, users.email_verified, users.display_name, users.picture, users.role, \
        users.notify_new_videos, users.notify_my_activity, users.notify_following_activity, users.followers_count, \
        users.following_count, users.videos_count, users.created_at, users.banned_at, users.locale
        """

    /// Reads a row by position, in the order of `columns` (by name cost a string
    /// comparison per column per row, which showed up in profiles of list pages):
    /// every query that builds one selects `columns` first.
    public init(row: Row) throws {
        id = try row.decode(at: 0)
        username = try row.decode(at: 1)
        email = try row.decode(at: 2)
        emailVerified = try row.decode(at: 3)
        displayName = try row.decode(at: 4)
        picture = try row.decode(at: 5)
        let roleName: String = try row.decode(at: 6)
        guard let role = Role(rawValue: roleName) else {
            throw StorageError.decoding(column: "role", expected: "a role name")
        }
        self.role = role
        notificationSettings = NotificationSettings(
            newVideos: try row.decode(at: 7),
            myActivity: try row.decode(at: 8),
            followingActivity: try row.decode(at: 9)
        )
        followersCount = try row.decode(at: 10)
        followingCount = try row.decode(at: 11)
        videosCount = try row.decode(at: 12)
        createdAt = try row.decode(at: 13)
        bannedAt = try row.decode(at: 14)
        let localeName: String = try row.decode(at: 15)
        locale = AccountLocale(rawValue: localeName) ?? .english
    }
}
