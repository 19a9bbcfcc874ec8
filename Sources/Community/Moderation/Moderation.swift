import Auth
import CloudHooks
import Storage
import Telemetry
import VideoRegistry

/// Moderators' and admins' actions (API.md "Moderation"): hide, restore, dismiss and delete
/// videos, delete comments, ban and unban users, change roles.
///
/// Each action is one transaction: the change through the hook pipeline (so counters, feeds
/// and notifications follow), then its line in the moderation log. Who may act on whom:
/// moderators and admins act on content; a moderator bans only users, an admin users and
/// moderators; nobody bans an admin (an admin is made a moderator first) or themselves; only
/// admins change roles, never their own.
package final class Moderation: Sendable {

    private let database: any Database
    private let accounts: Accounts
    private let hooks: Hooks
    private let videos: Videos
    private let social: Social
    private let clock: any WallClock
    private let log = ModerationLogStore()
    private let store = AccountStore()

    package init(database: any Database, accounts: Accounts, hooks: Hooks, videos: Videos, social: Social, clock: any WallClock) {
        self.database = database
        self.accounts = accounts
        self.hooks = hooks
        self.videos = videos
        self.social = social
        self.clock = clock
    }

    // MARK: Videos and comments

    /// Hides (`true`) or restores a video; answers it as it is now.
    package func setHidden(_ hidden: Bool, videoID: String, reason: String?, by identity: Accounts.Identity) throws -> Video {
        let reason = try Self.checked(reason)
        try Self.requireModerator(identity)
        return try database.write { connection in
            let video = try videos.setHidden(hidden, id: videoID, by: identity, on: connection)
            try log.record(hidden ? .hide : .restore, by: identity.userID, on: .video, id: video.id, reason: reason, now: clock.nowMillis(), on: connection)
            return video
        }
    }

    /// Clears a video's flags (it leaves the queue); answers the video.
    package func dismiss(videoID: String, reason: String?, by identity: Accounts.Identity) throws -> Video {
        let reason = try Self.checked(reason)
        try Self.requireModerator(identity)
        return try database.write { connection in
            let video = try videos.find(id: videoID, on: connection)
            try social.clearFlags(videoID: video.id, on: connection)
            try log.record(.dismiss, by: identity.userID, on: .video, id: video.id, reason: reason, now: clock.nowMillis(), on: connection)
            return try videos.find(id: video.id, on: connection)
        }
    }

    /// Deletes a video (its owner, or a moderator: then logged).
    package func deleteVideo(id: String, reason: String?, by identity: Accounts.Identity) throws {
        let reason = try Self.checked(reason)
        try database.write { connection in
            let video = try videos.delete(id: id, by: identity, on: connection)
            if video.ownerID != identity.userID {
                try log.record(.deleteVideo, by: identity.userID, on: .video, id: video.id, reason: reason, now: clock.nowMillis(), on: connection)
            }
        }
    }

    /// Deletes a comment (its author, the video's owner, or a moderator: then logged).
    package func deleteComment(id: String, reason: String?, by identity: Accounts.Identity) throws {
        let reason = try Self.checked(reason)
        try database.write { connection in
            let (comment, asModerator) = try social.deleteComment(id: id, by: identity, on: connection)
            if asModerator {
                try log.record(.deleteComment, by: identity.userID, on: .comment, id: comment.id, reason: reason, now: clock.nowMillis(), on: connection)
            }
        }
    }

    // MARK: Users

    /// Bans (`true`) or unbans a user; answers the account. A ban ends the user's sessions;
    /// the account's hooks take their content out of every counter (`BanCounters`), and the
    /// visibility filters out of every list. Banning someone banned (or unbanning someone who
    /// is not) changes nothing and logs nothing.
    package func setBanned(_ banned: Bool, userKey: String, reason: String?, by identity: Accounts.Identity) throws -> Account {
        let reason = try Self.checked(reason)
        try Self.requireModerator(identity)
        let now = clock.nowMillis()
        return try accounts.changeStanding { connection in
            let target = try user(userKey, on: connection)
            guard target.id != identity.userID else { throw SocialError.forbidden(.banOneself) }
            switch (identity.role, target.role) {
            case (_, .admin):
                throw SocialError.forbidden(.banAdmin)
            case (.moderator, .moderator), (.user, _):
                throw SocialError.forbidden(.banModeratorAsModerator)
            default:
                break
            }
            guard target.isBanned != banned else { return target }
            let updated = try store.setBan(banned ? now : nil, reason: reason, of: target, now: now, on: connection)
            try hooks.save(updated, previous: target, on: connection) {}
            if banned { try accounts.endSessions(userID: target.id, on: connection) }
            try log.record(banned ? .ban : .unban, by: identity.userID, on: .user, id: target.id, reason: reason, now: now, on: connection)
            return updated
        }
    }

    /// Changes a user's role (admins only, never their own); answers the account.
    package func setRole(_ role: Role, userKey: String, reason: String?, by identity: Accounts.Identity) throws -> Account {
        let reason = try Self.checked(reason)
        guard identity.role == .admin else { throw SocialError.forbidden(.adminsOnly) }
        let now = clock.nowMillis()
        return try accounts.changeStanding { connection in
            let target = try user(userKey, on: connection)
            guard target.id != identity.userID else { throw SocialError.forbidden(.changeOwnRole) }
            guard target.role != role else { return target }
            let updated = try store.setRole(role, of: target, now: now, on: connection)
            try hooks.save(updated, previous: target, on: connection) {}
            let why = "\(target.role.rawValue) -> \(role.rawValue)" + (reason.map { ": \($0)" } ?? "")
            try log.record(.setRole, by: identity.userID, on: .user, id: target.id, reason: why, now: now, on: connection)
            return updated
        }
    }

    // MARK: The outbox's dead letters

    /// Makes the dead job `seq` due again with a fresh count of attempts, in one transaction,
    /// and answers it; nil when no dead job has that seq (then nothing was changed). The caller
    /// is an admin, checked by the route.
    package func retryDeadJob(seq: Int64) throws -> OutboxEntry? {
        let now = clock.nowMillis()
        return try database.write { connection in
            guard try Outbox().revive(seq: seq, now: now, on: connection) == 1 else { return nil }
            return try Outbox().entry(seq: seq, on: connection)
        }
    }

    // MARK: Rules

    private func user(_ key: String, on connection: any DatabaseConnection) throws -> Account {
        guard let account = try store.find(idOrUsername: key, on: connection) else { throw SocialError.notFound(.user) }
        return account
    }

    package static func requireModerator(_ identity: Accounts.Identity) throws(SocialError) {
        guard identity.role.canModerate else { throw .forbidden(.moderatorsOnly) }
    }

    /// A reason as stored: trimmed, at most 500 characters, nil when empty.
    package static func checked(_ reason: String?) throws(SocialError) -> String? {
        guard let reason else { return nil }
        let text = try Social.reasonRule.validated(reason) { SocialError.validation(field: "reason", message: $0) }
        return text.isEmpty ? nil : text
    }
}
