import CloudHooks
import JSON

/// The feed lane's jobs (`Timelines`): fan-outs and clean-ups too large for one request,
/// continued in steps from where the last one stopped (`after`, an activity seq of a follow).

/// A new video into its owner's followers' homes, those whose follow comes after `after`.
package struct HomeFanOut: OutboxJobKind, Equatable {
    package static let kind = "fanout.home"
    package static let lane = OutboxLane.feed
    package var videoID: String
    package var after: Int64

    package var payload: [String: JSONValue] { ["video": .string(videoID), "after": .int(after)] }
    package init(videoID: String, after: Int64) {
        self.videoID = videoID
        self.after = after
    }
    package init(_ input: JobInput) throws {
        self.init(videoID: try input.string("video"), after: try input.int("after"))
    }
}

/// A new like, comment or follow into its author's followers' following feeds.
package struct FollowingFanOut: OutboxJobKind, Equatable {
    package static let kind = "fanout.following"
    package static let lane = OutboxLane.feed
    package var activityID: String
    package var after: Int64

    package var payload: [String: JSONValue] { ["activity": .string(activityID), "after": .int(after)] }
    package init(activityID: String, after: Int64) {
        self.activityID = activityID
        self.after = after
    }
    package init(_ input: JobInput) throws {
        self.init(activityID: try input.string("activity"), after: try input.int("after"))
    }
}

/// A deleted activity's rows out of its author's followers' following feeds. The activity is
/// gone, so it is named by what its rows hold: its seq and time.
package struct FollowingCleanup: OutboxJobKind, Equatable {
    package static let kind = "cleanup.following"
    package static let lane = OutboxLane.feed
    package var actorID: String
    package var activitySeq: Int64
    package var createdAt: Int64
    package var after: Int64

    package var payload: [String: JSONValue] {
        ["actor": .string(actorID), "activitySeq": .int(activitySeq), "createdAt": .int(createdAt), "after": .int(after)]
    }
    package init(actorID: String, activitySeq: Int64, createdAt: Int64, after: Int64) {
        self.actorID = actorID
        self.activitySeq = activitySeq
        self.createdAt = createdAt
        self.after = after
    }
    package init(_ input: JobInput) throws {
        // `activity` is the name jobs queued before the typed kinds gave the seq: such jobs may
        // still wait in an outbox when a server is upgraded.
        let seq = input.fields["activitySeq"] != nil ? try input.int("activitySeq") : try input.int("activity")
        self.init(actorID: try input.string("actor"), activitySeq: seq, createdAt: try input.int("createdAt"), after: try input.int("after"))
    }
}

/// A new follow's copy of the target's older videos into the follower's home, in steps
/// (newest first, before the last one copied).
package struct HomeBackfill: OutboxJobKind, Equatable {
    package static let kind = "backfill.home"
    package static let lane = OutboxLane.feed
    package var followerID: String
    package var targetID: String
    package var beforeTime: Int64
    package var beforeSeq: Int64

    package var payload: [String: JSONValue] {
        ["follower": .string(followerID), "target": .string(targetID), "beforeTime": .int(beforeTime), "beforeSeq": .int(beforeSeq)]
    }
    package init(followerID: String, targetID: String, beforeTime: Int64, beforeSeq: Int64) {
        self.followerID = followerID
        self.targetID = targetID
        self.beforeTime = beforeTime
        self.beforeSeq = beforeSeq
    }
    package init(_ input: JobInput) throws {
        self.init(followerID: try input.string("follower"), targetID: try input.string("target"),
                  beforeTime: try input.int("beforeTime"), beforeSeq: try input.int("beforeSeq"))
    }
}
