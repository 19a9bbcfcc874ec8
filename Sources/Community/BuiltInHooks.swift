import Auth
import CloudHooks
import Storage
import Telemetry
import VideoRegistry

/// The hooks every Pacenote server runs, registered through the pipeline at start-up:
/// stored counters kept exact, and the cascades of deletion.
///
/// They live here rather than in Hooks because they span the entities of every
/// module (accounts, videos, activities), and Hooks, below those modules, knows none.
///
/// What fires, inside the write's transaction:
/// - Activity saved (inserted): like -> video.likesCount + 1; comment -> commentsCount + 1;
///   flag -> flagsCount + 1, and the video is hidden at `autoHideFlags`; follow ->
///   followersCount + 1 of the followed, followingCount + 1 of the follower.
/// - Activity deleted: the same, minus one.
/// - Video saved (inserted): owner's videosCount + 1, rally's videosCount + 1.
/// - Video saved hidden or restored (a moderator, or `autoHideFlags`): owner's and rally's
///   videosCount - 1 or + 1.
/// - Video before delete: every activity about it is deleted (only the video's own
///   counters depend on them, and those go with it).
/// - Video deleted: owner's and rally's videosCount - 1, unless it was hidden.
/// - Account before delete: its videos deleted through the pipeline (so the video hooks
///   run), then every remaining activity from or to it (so the activity hooks correct
///   everyone else's counters).
/// - Account saved with a ban or an unban: the counters its content moves (see `BanCounters`).
/// - Rallies and videos saved or deleted, and bans: the change log (`ChangeHooks`, registered
///   last, so its rows are written once everything else of the write has passed).
///
/// `videosCount` counts the videos everyone can see (API.md "Visibility"), one number for
/// every reader, so it never tells that moderated content exists. A banned user's videos,
/// likes and comments count nowhere while the ban lasts: the rule is "a video counts when it
/// is not hidden and its owner is not banned; a like or comment counts when its author is not
/// banned". The ban's transaction takes them out of every counter and the unban's puts them
/// back; the hooks above read the video's stored `hidden` and the author's or owner's ban
/// inside the write's own transaction, so a like racing the ban (it passed the session check
/// just before the ban committed), or two moderators hiding one video at once, are counted
/// by the same rule (on PostgreSQL the serializable write that loses is run again and then
/// sees the other's change), and the unban restores exactly what is there.
package enum BuiltInHooks {
    package struct Configuration: Sendable {
        /// Distinct flags that hide a video automatically (API.md "Moderation").
        package var autoHideFlags = 5
        /// Where an automatic hide is also reported (the moderation webhook), if anywhere.
        package var alerts: ModerationAlerts?

        package init(autoHideFlags: Int = 5, alerts: ModerationAlerts? = nil) {
            self.autoHideFlags = autoHideFlags
            self.alerts = alerts
        }
    }

    package static func register(on registry: HookRegistry, configuration: Configuration, clock: any WallClock = SystemClock()) {
        let videos = VideoStore()
        let activities = ActivityStore()
        let log = ModerationLogStore()

        registry.afterSave(Activity.self) { event in
            guard event.isInsert else { return }
            try count(event.entity, by: 1, on: event.connection)
            if event.entity.kind == .inappropriate, let videoID = event.entity.videoID,
               let video = try videos.find(id: videoID, on: event.connection),
               !video.hidden, video.flagsCount >= configuration.autoHideFlags {
                // Through the pipeline like a moderator's hide, and logged with no actor.
                var hidden = video
                hidden.hidden = true
                try event.hooks.save(hidden, previous: video, on: event.connection) {
                    try videos.setHidden(true, videoID: videoID, now: event.entity.createdAt, on: event.connection)
                }
                try log.record(.autoHide, by: nil, on: .video, id: videoID, reason: "\(video.flagsCount) distinct flags",
                               now: event.entity.createdAt, on: event.connection)
                try configuration.alerts?.autoHidden(hidden, flags: video.flagsCount, at: event.entity.createdAt, on: event.connection)
            }
        }
        registry.afterDelete(Activity.self) { event in
            try count(event.entity, by: -1, on: event.connection)
        }

        registry.afterSave(Video.self) { event in
            // Counted before (never, for a new video) and now; `previous` is the row as stored in
            // this transaction (a hide, a restore and the automatic hide read it there).
            let was = event.previous.map { !$0.hidden } ?? false, now = !event.entity.hidden
            guard was != now else { return }
            try countVideo(event.entity, by: now ? 1 : -1, on: event.connection)
        }
        registry.beforeDelete(Video.self) { event in
            try event.connection.execute("DELETE FROM activities WHERE video_id = \(event.entity.id)")
        }
        registry.afterDelete(Video.self) { event in
            guard !event.entity.hidden else { return }  // a hidden video was not counted
            try countVideo(event.entity, by: -1, on: event.connection)
        }

        registry.afterSave(Account.self) { event in
            guard let previous = event.previous, previous.isBanned != event.entity.isBanned else { return }
            try BanCounters.move(contentOf: event.entity.id, by: event.entity.isBanned ? -1 : 1, on: event.connection)
        }

        registry.beforeDelete(Account.self) { event in
            let connection = event.connection
            for video in try videos.videos(ownerID: event.entity.id, on: connection) {
                try event.hooks.delete(video, on: connection) { try videos.delete(id: video.id, on: connection) }
            }
            for activity in try activities.involving(userID: event.entity.id, on: connection) {
                try event.hooks.delete(activity, on: connection) { try activities.delete(id: activity.id, on: connection) }
            }
        }

        ChangeHooks.register(on: registry, clock: clock)
    }

    /// Moves the owner's and the rally's `videosCount` by `delta` for a video that starts or
    /// stops counting, unless its owner is banned (then it counts nowhere either way).
    private static func countVideo(_ video: Video, by delta: Int, on connection: any DatabaseConnection) throws {
        guard try !AccountStore().isBanned(userID: video.ownerID, on: connection) else { return }
        try AccountStore().adjust(.videos, of: video.ownerID, by: delta, on: connection)
        try RallyStore().adjustVideosCount(rallyID: video.rallyID, by: delta, on: connection)
    }

    /// Moves the counters one activity affects by `delta`.
    private static func count(_ activity: Activity, by delta: Int, on connection: any DatabaseConnection) throws {
        switch activity.kind {
        case .like, .comment, .inappropriate:
            guard let videoID = activity.videoID else { return }
            // A banned author's likes and comments are out of every counter (see above); flags still count for moderators.
            if activity.kind != .inappropriate, try AccountStore().isBanned(userID: activity.fromUserID, on: connection) { return }
            let counter: VideoStore.Counter = activity.kind == .like ? .likes : activity.kind == .comment ? .comments : .flags
            try VideoStore().adjust(counter, of: videoID, by: delta, on: connection)
        case .follow:
            try AccountStore().adjust(.followers, of: activity.toUserID, by: delta, on: connection)
            try AccountStore().adjust(.following, of: activity.fromUserID, by: delta, on: connection)
        }
    }
}
