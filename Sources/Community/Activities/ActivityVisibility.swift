import Storage
import VideoRegistry

/// Who may see an activity as an object (API.md "Parse-compatible REST"): likes, comments and
/// follows are public (within the rest of the viewer's visibility), but a flag says who reported
/// whom and why, so an `inappropriate` activity is seen only by its author and by moderators and
/// admins. `/v1` never lists activities as such: flags appear only in the moderation queue
/// (`GET /v1/moderation/queue`, behind `Moderation.requireModerator`) and in their author's own
/// export. This is that rule, in one place, for a reader that lists activities by their fields
/// (the Parse facade).
extension Viewer {
    /// Whether this viewer may see `activity` at all.
    package func canSee(_ activity: Activity) -> Bool {
        activity.kind != .inappropriate || canModerate || (userID != nil && activity.fromUserID == userID)
    }

    /// `canSee(_:)` as an SQL condition on the activities table (`alias` names it), added to every
    /// statement that reads activities for a client. The type is a literal (`ActivityKind.sql`),
    /// so the planner still chooses the index a query's equalities select: the condition only
    /// filters the rows that range holds.
    package func activityKindFilter(_ alias: String = "a") -> SQL {
        if canModerate { return "1 = 1" }
        let notAFlag: SQL = "\(unsafe: alias).type <> \(ActivityKind.inappropriate.sql)"
        guard let userID else { return notAFlag }
        return "(\(notAFlag) OR \(unsafe: alias).from_user_id = \(userID))"
    }
}
