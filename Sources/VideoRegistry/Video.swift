import Storage

/// A video record: a YouTube video registered against one day of a rally.
public struct Video: Sendable, Equatable {
    public let id: String
    public let youtubeID: YouTubeID
    public var title: String
    public var description: String
    public let rallyID: String
    public let day: Int
    public let ownerID: String
    public var hidden: Bool
    public var likesCount: Int
    public var commentsCount: Int
    public var flagsCount: Int
    public let createdAt: Int64
}

extension Video {
    /// The columns `init(row:)` reads, qualified by `v` so joins can add their own.
    public static let columns: SQL = """
        v.id, v.youtube_id, v.title, v.description, v.rally_id, v.day, v.owner_id, v.hidden, \
        v.likes_count, v.comments_count, v.flags_count, v.created_at
        """

    /// Reads a row by position, in the order of `columns` (by name cost a string
    /// comparison per column per row, which showed up in profiles of list pages):
    /// every query that builds one selects `columns` first.
    public init(row: Row) throws {
        var reader = RowReader(row)
        try self.init(reading: &reader)
    }

    /// Reads the next columns of a row, in the order of `columns`.
    public init(reading reader: inout RowReader) throws {
        id = try reader.next()
        let stored: String = try reader.next()
        guard let youtubeID = YouTubeID(parsing: stored) else {
            throw StorageError.decoding(column: "youtube_id", expected: "a YouTube id")
        }
        self.youtubeID = youtubeID
        title = try reader.next()
        description = try reader.next()
        rallyID = try reader.next()
        day = try reader.next()
        ownerID = try reader.next()
        hidden = try reader.next()
        likesCount = try reader.next()
        commentsCount = try reader.next()
        flagsCount = try reader.next()
        createdAt = try reader.next()
    }

    /// Plain video rows, nothing joined.
    public static let selection = Selection(columns: columns) { reader in try Video(reading: &reader) }
}

/// Who is looking, for the visibility of hidden videos: their owner, moderators and admins
/// see them; everyone else, anonymous readers included, does not.
public struct Viewer: Sendable, Equatable {
    public let userID: String?
    public let canModerate: Bool

    public static let anonymous = Viewer(userID: nil, canModerate: false)

    public init(userID: String?, canModerate: Bool) {
        self.userID = userID
        self.canModerate = canModerate
    }

    public func canSee(_ video: Video) -> Bool {
        canSee(hidden: video.hidden, ownerID: video.ownerID)
    }

    /// Whether the viewer may see a video with this flag and owner.
    public func canSee(hidden: Bool, ownerID: String) -> Bool {
        !hidden || canModerate || ownerID == userID
    }

    /// How many rows a condition is evaluated for, which decides how a banned owner is found.
    public enum Rows: Sendable {
        /// A list: the banned ids are read once per statement into a set (`bannedUserIDs`),
        /// then each row is a lookup in it.
        case many
        /// One video by id: its owner's row is probed instead. Building the set is a temporary
        /// B-tree per statement, which cost a read by id a quarter of its CPU.
        case one
    }

    /// The SQL condition that keeps only the videos this viewer may see (`alias` names the
    /// videos table): not hidden and not by a banned owner, unless the viewer owns it or
    /// moderates.
    public func visibilityFilter(_ alias: String = "v", rows: Rows = .many) -> SQL {
        if canModerate { return "1 = 1" }
        let ownerShown: SQL = switch rows {
        case .many: "\(unsafe: alias).owner_id NOT IN (\(Self.bannedUserIDs))"
        case .one: """
            NOT EXISTS (SELECT 1 FROM users banned_owner WHERE banned_owner.id = \(unsafe: alias).owner_id \
            AND banned_owner.banned_at IS NOT NULL)
            """
        }
        let shown: SQL = "(\(unsafe: alias).hidden = FALSE AND \(ownerShown))"
        if let userID { return "(\(shown) OR \(unsafe: alias).owner_id = \(userID))" }
        return shown
    }

    /// The SQL condition that keeps only activities (likes, comments, follows) whose author
    /// is not banned, for viewers who do not moderate (`alias` names the activities table).
    public func authorFilter(_ alias: String = "a", column: String = "from_user_id") -> SQL {
        if canModerate { return "1 = 1" }
        return "\(unsafe: alias).\(unsafe: column) NOT IN (\(Self.bannedUserIDs))"
    }

    /// The ids of banned accounts: a handful, read once per statement from the partial index
    /// `users_banned` (0007_moderation.sql).
    public static let bannedUserIDs: SQL = "SELECT id FROM users WHERE banned_at IS NOT NULL"
}
