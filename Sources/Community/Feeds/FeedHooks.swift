import Auth
import CloudHooks
import Storage
import Telemetry
import VideoRegistry

/// Keeps the feed timelines in step with every write, through the hook pipeline.
///
/// Registered before `BuiltInHooks`, because a video's `beforeDelete` here must find the
/// activities about it that the built-in cascade then deletes. What fires:
/// - Video saved (inserted): into the owner's home and their followers' (`Timelines`).
/// - Video before delete: out of every home, with the following-feed rows of its activities.
/// - Activity saved (inserted): likes, comments and follows into the author's followers'
///   following feeds through the outbox (flags never); a follow also copies the followed
///   user's videos and recent activities into the follower's feeds, at once.
/// - Activity before delete: out of every following feed through the outbox; an unfollow
///   also takes the followed user's videos and activities out of the follower's feeds, at once.
/// - Account before delete: the account's own feeds.
package enum FeedHooks {
    package static func register(on registry: HookRegistry, timelines: Timelines, clock: any WallClock) {
        registry.afterSave(Video.self) { event in
            guard event.isInsert else { return }
            try timelines.videoCreated(videoID: event.entity.id, now: clock.nowMillis(), on: event.connection)
        }
        registry.beforeDelete(Video.self) { event in
            try timelines.videoDeleting(videoID: event.entity.id, on: event.connection)
        }

        registry.afterSave(Activity.self) { event in
            guard event.isInsert, event.entity.kind != .inappropriate else { return }
            let activity = event.entity
            try timelines.activityCreated(activityID: activity.id, now: clock.nowMillis(), on: event.connection)
            if activity.kind == .follow {
                try timelines.followed(followerID: activity.fromUserID, targetID: activity.toUserID, now: clock.nowMillis(), on: event.connection)
            }
        }
        registry.beforeDelete(Activity.self) { event in
            let activity = event.entity
            try timelines.activityDeleting(activity, now: clock.nowMillis(), on: event.connection)
            if activity.kind == .follow {
                try timelines.unfollowed(followerID: activity.fromUserID, targetID: activity.toUserID, on: event.connection)
            }
        }

        registry.beforeDelete(Account.self) { event in
            try timelines.accountDeleting(userID: event.entity.id, on: event.connection)
        }
    }
}
