import Auth
import Crypto
import CloudHooks
import Storage
import Telemetry
import VideoRegistry

/// Likes, comments, flags and follows (API.md "Activities"). Each write is one transaction
/// through the hook pipeline, whose built-in hooks keep the counters exact.
package final class Social: Sendable {
    package static let commentRule = TextRule("A comment", characters: 1...500)
    package static let reasonRule = TextRule("A reason", characters: 0...500)

    private let database: any Database
    private let hooks: Hooks
    private let clock: any WallClock
    private let activities = ActivityStore()
    private let videos = VideoStore()
    private let accounts = AccountStore()
    private let registry: VideoRegistry.Videos

    package init(database: any Database, hooks: Hooks, videos registry: VideoRegistry.Videos, clock: any WallClock) {
        self.database = database
        self.hooks = hooks
        self.registry = registry
        self.clock = clock
    }

    // MARK: Likes

    // Each write answers with `answer` read inside its own transaction: one statement,
    // and the client sees exactly the state it committed (no second transaction).

    /// Likes a video (idempotent); answers the video as it is now.
    package func like<Item>(videoID: String, by identity: Accounts.Identity, answering answer: Selection<Item>) throws -> Item {
        try writeOnce { connection in
            _ = try likeOnce(videoID: videoID, by: identity, on: connection)
            return try registry.visible(id: videoID, viewer: Viewer(identity), selecting: answer, on: connection)
        }
    }

    /// Likes a video as `like` does; answers the like itself, the new one or the one there was
    /// (the Parse facade's `Activity`, whose second create is the same object).
    package func likeActivity(videoID: String, by identity: Accounts.Identity) throws -> Activity {
        try writeOnce { connection in try likeOnce(videoID: videoID, by: identity, on: connection) }
    }

    private func likeOnce(videoID: String, by identity: Accounts.Identity, on connection: any DatabaseConnection) throws -> Activity {
        let video = try registry.visible(id: videoID, viewer: Viewer(identity), on: connection)
        if let like = try activities.find(.like, from: identity.userID, video: video.id, on: connection) { return like }
        return try record(.like, from: identity.userID, to: video.ownerID, video: video.id, content: nil, on: connection)
    }

    /// Takes a like back; a like that does not exist changes nothing.
    package func unlike<Item>(videoID: String, by identity: Accounts.Identity, answering answer: Selection<Item>) throws -> Item {
        try database.write { connection in
            let video = try registry.visible(id: videoID, viewer: Viewer(identity), on: connection)
            if let like = try activities.find(.like, from: identity.userID, video: video.id, on: connection) {
                try remove(like, on: connection)
            }
            return try registry.visible(id: videoID, viewer: Viewer(identity), selecting: answer, on: connection)
        }
    }

    // MARK: Comments

    package func comment<Item>(videoID: String, content: String, by identity: Accounts.Identity, answering answer: Selection<Item>) throws -> Item {
        let text = try Self.commentRule.validated(content) { SocialError.validation(field: "content", message: $0) }
        return try database.write { connection in
            let video = try registry.visible(id: videoID, viewer: Viewer(identity), on: connection)
            let comment = try record(.comment, from: identity.userID, to: video.ownerID, video: video.id, content: text, on: connection)
            return try read(comment, answer, on: connection)
        }
    }

    /// Deletes a comment: its author, the video's owner, moderators and admins may.
    /// Answers whether the caller deleted it as a moderator (neither author nor owner), inside
    /// the caller's transaction, so that moderation can log it there.
    package func deleteComment(id: String, by identity: Accounts.Identity, on connection: any DatabaseConnection) throws -> (comment: Activity, asModerator: Bool) {
        guard let comment = try activities.find(id: id, on: connection), comment.kind == .comment,
              let videoID = comment.videoID else {
            throw SocialError.notFound(.comment)
        }
        // Only the video's being out of sight means "no such comment": a database failure
        // (a PostgreSQL serialization failure, which `write` runs again) goes through as itself.
        let video: Video
        do {
            video = try registry.visible(id: videoID, viewer: Viewer(identity), on: connection)
        } catch VideoRegistryError.notFound {
            throw SocialError.notFound(.comment)
        }
        let ownsIt = comment.fromUserID == identity.userID || video.ownerID == identity.userID
        guard ownsIt || identity.role.canModerate else {
            throw SocialError.forbidden(.deleteOthersComment)
        }
        try remove(comment, on: connection)
        return (comment, !ownsIt)
    }

    /// Deletes a video's flags through the pipeline (moderation's dismiss), inside the caller's transaction.
    package func clearFlags(videoID: String, on connection: any DatabaseConnection) throws {
        for flag in try activities.flags(videoID: videoID, on: connection) {
            try remove(flag, on: connection)
        }
    }

    // MARK: Flags

    /// Flags a video as inappropriate, once per user, never one's own.
    package func flag<Item>(videoID: String, reason: String?, by identity: Accounts.Identity, answering answer: Selection<Item>) throws -> Item {
        let reason = try reason.map { value throws(SocialError) -> String in
            try Self.reasonRule.validated(value) { SocialError.validation(field: "reason", message: $0) }
        }
        return try writeOnce { connection in
            let video = try registry.visible(id: videoID, viewer: Viewer(identity), on: connection)
            guard video.ownerID != identity.userID else { throw SocialError.forbidden(.flagOwnVideo) }
            guard try activities.find(.inappropriate, from: identity.userID, video: video.id, on: connection) == nil else {
                throw SocialError.conflict(.alreadyFlagged)
            }
            let flag = try record(.inappropriate, from: identity.userID, to: video.ownerID, video: video.id, content: reason, on: connection)
            return try read(flag, answer, on: connection)
        }
    }

    // MARK: Follows

    /// Follows a user (idempotent); answers the followed user as they are now. A banned
    /// account cannot be followed, by anyone: it is not found (API.md "Visibility").
    package func follow(_ idOrUsername: String, by identity: Accounts.Identity) throws -> Account {
        try writeOnce { connection in
            let target = try followOnce(idOrUsername, by: identity, on: connection).target
            return try user(target.id, on: connection)
        }
    }

    /// Follows as `follow` does; answers the follow itself, the new one or the one there was.
    package func followActivity(_ idOrUsername: String, by identity: Accounts.Identity) throws -> Activity {
        try writeOnce { connection in try followOnce(idOrUsername, by: identity, on: connection).follow }
    }

    private func followOnce(_ idOrUsername: String, by identity: Accounts.Identity, on connection: any DatabaseConnection) throws
        -> (follow: Activity, target: Account) {
        let target = try user(idOrUsername, on: connection)
        guard !target.isBanned else { throw SocialError.notFound(.user) }
        guard target.id != identity.userID else {
            throw SocialError.selfFollow
        }
        if let follow = try activities.find(.follow, from: identity.userID, to: target.id, on: connection) { return (follow, target) }
        return (try record(.follow, from: identity.userID, to: target.id, video: nil, content: nil, on: connection), target)
    }

    /// Stops following; not following changes nothing. A banned account is not found for a
    /// caller who may not see it, and its follows stay as they are until the unban (the
    /// answer would be its profile).
    package func unfollow(_ idOrUsername: String, by identity: Accounts.Identity) throws -> Account {
        try database.write { connection in
            let target = try user(idOrUsername, on: connection)
            guard Viewer(identity).canSee(target) else { throw SocialError.notFound(.user) }
            if let follow = try activities.find(.follow, from: identity.userID, to: target.id, on: connection) {
                try remove(follow, on: connection)
            }
            return try user(target.id, on: connection)
        }
    }

    private func user(_ idOrUsername: String, on connection: any DatabaseConnection) throws -> Account {
        guard let account = try accounts.find(idOrUsername: idOrUsername, on: connection) else {
            throw SocialError.notFound(.user)
        }
        return account
    }

    // MARK: Writes through the hooks

    /// A write that inserts at most one like, flag or follow per user and target, each a
    /// check (`find`) then an insert. With SQLite's single writer nothing can come between the
    /// two; on PostgreSQL two requests of one user run side by side, both find nothing, and
    /// the second insert fails on the partial unique index (`activities_one_like`, `_flag`,
    /// `_follow`, all on `from_user_id`). That failure aborts its transaction, so the write is
    /// run once more, from the start: it finds the row the other request committed and answers
    /// as a repeat does (200 for a like or a follow, 409 for a flag), never a 500.
    private func writeOnce<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        do {
            return try database.write(body)
        } catch let error as StorageError where error.isUniqueViolation(on: "from_user_id") {
            return try database.write(body)
        }
    }

    @discardableResult
    private func record(_ kind: ActivityKind, from: String, to: String, video: String?, content: String?, on connection: any DatabaseConnection) throws -> Activity {
        let activity = Activity(
            id: try SecureRandom.alphanumericID(), kind: kind, fromUserID: from, toUserID: to,
            videoID: video, content: content, createdAt: clock.nowMillis()
        )
        try hooks.save(activity, on: connection) { try activities.insert(activity, on: connection) }
        return activity
    }

    /// An activity this transaction has just written, as `selection` reads it.
    private func read<Item>(_ activity: Activity, _ selection: Selection<Item>, on connection: any DatabaseConnection) throws -> Item {
        guard let item = try activities.find(id: activity.id, selecting: selection, on: connection) else {
            throw StorageError.decoding(column: "id", expected: "the activity just written")
        }
        return item
    }

    private func remove(_ activity: Activity, on connection: any DatabaseConnection) throws {
        try hooks.delete(activity, on: connection) { try activities.delete(id: activity.id, on: connection) }
    }
}
