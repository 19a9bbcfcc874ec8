import CloudHooks
import JSON
import Storage

/// The notify lane's jobs (`Notifier`): a broadcast or a followers' notice in batches, each
/// continuing after the last recipient of the one before (`after`).

/// A new video's notifications to its owner's followers who want them.
package struct NewVideoBroadcast: OutboxJobKind, Equatable {
    package static let kind = "notify.new_video"
    package static let lane = OutboxLane.notify
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

/// A like's, comment's or follow's notifications to its author's followers who want them;
/// `push` whether they are also pushed (a like pushes once in a while per pair).
package struct FollowersNotice: OutboxJobKind, Equatable {
    package static let kind = "notify.following"
    package static let lane = OutboxLane.notify
    package var activityID: String
    package var after: Int64
    package var push: Bool

    package var payload: [String: JSONValue] { ["activity": .string(activityID), "after": .int(after), "push": .bool(push)] }
    package init(activityID: String, after: Int64, push: Bool) {
        self.activityID = activityID
        self.after = after
        self.push = push
    }
    package init(_ input: JobInput) throws {
        self.init(activityID: try input.string("activity"), after: try input.int("after"), push: try input.bool("push"))
    }
}

/// The push lane's jobs: one notification to one installation, or to the operator's webhook.
/// They are queued by the thousand in one statement (`Notifier.queueDeliveries`), their payload
/// built in SQL from the rows (`payloadSQL`), with the same member names as `payload`.
package struct DeviceDelivery: OutboxJobKind, Equatable {
    package static let kind = "push.device"
    package static let lane = OutboxLane.push
    package var notificationID: String
    package var installationID: String

    package var payload: [String: JSONValue] { [Self.notification: .string(notificationID), Self.installation: .string(installationID)] }
    package init(notificationID: String, installationID: String) {
        self.notificationID = notificationID
        self.installationID = installationID
    }
    package init(_ input: JobInput) throws {
        self.init(notificationID: try input.string(Self.notification), installationID: try input.string(Self.installation))
    }

    /// The payload of one job per row, from the rows' `n.id` and `i.id`.
    package static func payloadSQL(for dialect: SQLDialect) -> SQL {
        SQL.jsonObject([notification: "n.id", installation: "i.id"], for: dialect)
    }
    static let notification = "n"
    static let installation = "i"
}

package struct WebhookNotice: OutboxJobKind, Equatable {
    package static let kind = "push.webhook"
    package static let lane = OutboxLane.push
    package var notificationID: String

    package var payload: [String: JSONValue] { [DeviceDelivery.notification: .string(notificationID)] }
    package init(notificationID: String) {
        self.notificationID = notificationID
    }
    package init(_ input: JobInput) throws {
        self.init(notificationID: try input.string(DeviceDelivery.notification))
    }

    /// The payload of one job per row, from the rows' `n.id`.
    package static func payloadSQL(for dialect: SQLDialect) -> SQL {
        SQL.jsonObject([DeviceDelivery.notification: "n.id"], for: dialect)
    }
}
