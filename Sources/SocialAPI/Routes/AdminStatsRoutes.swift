import Auth
import Community
import HTTP
import JSON
import Storage
import Telemetry

/// API.md "Announcements and alerts": `GET /v1/admin/stats` (admins), the last 30 days.
struct AdminStatsRoutes {
    static let days = 30

    let database: any Database
    let clock: any WallClock

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.get("/v1/admin/stats", policy: .session, stats)
    }

    @Sendable func stats(_ request: Request, _ context: Context) throws -> Response {
        _ = try context.admin()
        let now = clock.nowMillis()
        let (days, active) = try database.read { connection in try AdminStats().days(Self.days, now: now, on: connection) }
        return .json(200, AdminStatsJSON(days: days, distinctActiveUsers: active))
    }
}

/// `{"days": [{date, signups, activeUsers, videos, likes, comments, flags}], "totals": {…}}`:
/// oldest day first; totals are the window's sums, and its distinct active users.
struct AdminStatsJSON: JSONEncodable {
    let days: [DayStats]
    let distinctActiveUsers: Int

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("days")
        writer.beginArray()
        for day in days {
            writer.beginObject()
            writer.field("date", date: day.day)
            Self.counts(signups: day.signups, active: day.activeUsers, videos: day.videos, likes: day.likes, comments: day.comments,
                        flags: day.flags, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.key("totals")
        writer.beginObject()
        writer.field("days", days.count)
        Self.counts(signups: days.map(\.signups).reduce(0, +), active: distinctActiveUsers, videos: days.map(\.videos).reduce(0, +),
                    likes: days.map(\.likes).reduce(0, +), comments: days.map(\.comments).reduce(0, +), flags: days.map(\.flags).reduce(0, +),
                    to: &writer)
        writer.endObject()
        writer.endObject()
    }

    private static func counts(signups: Int, active: Int, videos: Int, likes: Int, comments: Int, flags: Int, to writer: inout JSONWriter) {
        writer.field("signups", signups)
        writer.field("activeUsers", active)
        writer.field("videos", videos)
        writer.field("likes", likes)
        writer.field("comments", comments)
        writer.field("flags", flags)
    }
}
