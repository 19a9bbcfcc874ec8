import Auth
import Crypto
import CloudHooks
import Storage
import Telemetry

/// Video records (API.md "Videos"): registration with YouTube id parsing and day checks,
/// owner edits, deletion by owner or moderators, and hidden-video visibility. Every write
/// runs through the hook pipeline, which keeps counters and cascades.
public final class Videos: Sendable {
    /// A new video as the client describes it.
    public struct Input: Sendable {
        public var youtubeID: String
        public var title: String
        public var rallyID: String
        public var day: Int
        public var description: String?
        public init(youtubeID: String, title: String, rallyID: String, day: Int, description: String?) {
            self.youtubeID = youtubeID
            self.title = title
            self.rallyID = rallyID
            self.day = day
            self.description = description
        }
    }

    static let titleRule = TextRule("A title", characters: 1...100)
    static let descriptionRule = TextRule("A description", characters: 0...2_000)

    private let database: any Database
    private let hooks: Hooks
    private let clock: any WallClock
    private let store = VideoStore()
    private let rallies = RallyStore()

    public init(database: any Database, hooks: Hooks, clock: any WallClock = SystemClock()) {
        self.database = database
        self.hooks = hooks
        self.clock = clock
    }

    public func create(_ input: Input, by identity: Accounts.Identity) throws -> Video {
        guard let youtubeID = YouTubeID(parsing: input.youtubeID) else { throw VideoRegistryError.invalidYouTubeID }
        let title = try Self.title(input.title)
        let description = try Self.description(input.description ?? "")
        let now = clock.nowMillis()
        let video = Video(
            id: try SecureRandom.alphanumericID(), youtubeID: youtubeID, title: title, description: description,
            rallyID: input.rallyID, day: input.day, ownerID: identity.userID, hidden: false,
            likesCount: 0, commentsCount: 0, flagsCount: 0, createdAt: now
        )
        return try database.write { connection in
            guard let rally = try rallies.find(id: input.rallyID, on: connection) else {
                throw VideoRegistryError.validation(field: "rallyId", message: "No rally has that id.")
            }
            guard rally.hasDay(input.day) else {
                throw VideoRegistryError.validation(field: "day", message: "That rally has days 1 to \(rally.dayCount).")
            }
            try hooks.save(video, on: connection) { try store.insert(video, on: connection) }
            return video
        }
    }

    /// The video, if the viewer may see it; a hidden video is "not found" to everyone else.
    public func video(id: String, viewer: Viewer) throws -> Video {
        try database.read { connection in try visible(id: id, viewer: viewer, on: connection) }
    }

    /// The same check inside a caller's transaction.
    public func visible(id: String, viewer: Viewer, on connection: any DatabaseConnection) throws -> Video {
        guard let video = try store.find(id: id, on: connection), viewer.canSee(video) else { throw VideoRegistryError.notFound }
        // A banned owner's videos are out of sight like hidden ones (moderators still see them).
        if !viewer.canModerate, video.ownerID != viewer.userID, try store.isOwnerBanned(video, on: connection) {
            throw VideoRegistryError.notFound
        }
        return video
    }

    /// The video as `selection` reads it, if the viewer may see it (one statement).
    public func visible<Item>(id: String, viewer: Viewer, selecting selection: Selection<Item>, on connection: any DatabaseConnection) throws -> Item {
        guard let item = try store.find(id: id, viewer: viewer, selecting: selection, on: connection) else { throw VideoRegistryError.notFound }
        return item
    }

    /// Changes title or description (owner only; moderators hide instead).
    public func update(id: String, title: String?, description: String?, by identity: Accounts.Identity) throws -> Video {
        let viewer = Viewer(identity)
        let title = try title.map(Self.title)
        let description = try description.map(Self.description)
        let now = clock.nowMillis()
        return try database.write { connection in
            let previous = try visible(id: id, viewer: viewer, on: connection)
            guard previous.ownerID == identity.userID else { throw VideoRegistryError.forbidden("Only its owner can edit a video.") }
            var video = previous
            video.title = title ?? video.title
            video.description = description ?? video.description
            try hooks.save(video, previous: previous, on: connection) { try store.update(video, now: now, on: connection) }
            return video
        }
    }

    /// Deletes a video (owner, moderator, admin); the hooks remove every activity about it.
    public func delete(id: String, by identity: Accounts.Identity) throws {
        try database.write { connection in _ = try delete(id: id, by: identity, on: connection) }
    }

    /// The same inside a caller's transaction (moderation logs it there); answers the deleted video.
    public func delete(id: String, by identity: Accounts.Identity, on connection: any DatabaseConnection) throws -> Video {
        let video = try visible(id: id, viewer: Viewer(identity), on: connection)
        guard video.ownerID == identity.userID || identity.role.canModerate else {
            throw VideoRegistryError.forbidden("Only its owner or a moderator can delete a video.")
        }
        try hooks.delete(video, on: connection) { try store.delete(id: video.id, on: connection) }
        return video
    }

    /// Hides or restores a video (moderators and admins).
    public func setHidden(_ hidden: Bool, id: String, by identity: Accounts.Identity) throws -> Video {
        try database.write { connection in try setHidden(hidden, id: id, by: identity, on: connection) }
    }

    /// The same inside a caller's transaction (moderation logs it there).
    public func setHidden(_ hidden: Bool, id: String, by identity: Accounts.Identity, on connection: any DatabaseConnection) throws -> Video {
        guard identity.role.canModerate else { throw VideoRegistryError.forbidden("Only moderators can hide or restore videos.") }
        guard let previous = try store.find(id: id, on: connection) else { throw VideoRegistryError.notFound }
        var video = previous
        video.hidden = hidden
        try hooks.save(video, previous: previous, on: connection) { try store.update(video, now: clock.nowMillis(), on: connection) }
        return video
    }

    /// The video, whatever its visibility, inside a caller's transaction (moderation).
    public func find(id: String, on connection: any DatabaseConnection) throws -> Video {
        guard let video = try store.find(id: id, on: connection) else { throw VideoRegistryError.notFound }
        return video
    }

    private static func title(_ value: String) throws -> String {
        try titleRule.validated(value) { VideoRegistryError.validation(field: "title", message: $0) }
    }

    private static func description(_ value: String) throws -> String {
        try descriptionRule.validated(value) { VideoRegistryError.validation(field: "description", message: $0) }
    }
}

extension Viewer {
    /// The viewer a signed-in caller is.
    public init(_ identity: Accounts.Identity?) {
        self.init(userID: identity?.userID, canModerate: identity?.role.canModerate ?? false)
    }

    /// Whether the viewer may see this account's profile and lists (API.md "Visibility"): a
    /// banned account is not there for anyone but moderators and admins, like its videos.
    public func canSee(_ account: Account) -> Bool {
        canModerate || !account.isBanned
    }

    /// `canSee(_:)` as an SQL condition on the users table (`table` names it), for queries
    /// that list accounts (the Parse facade's `_User`): the same rule, where the rows are read.
    public func accountFilter(_ table: String = "users") -> SQL {
        canModerate ? "1 = 1" : "\(unsafe: table).banned_at IS NULL"
    }
}
