import Crypto
import Storage
import VideoRegistry

/// What a notification is about (API.md "Notifications": `kind`), as the inbox, push texts and
/// app payloads name it.
package enum NotificationKind: String, Sendable, CaseIterable {
    case like, comment, follow
    case newVideo = "new_video"
    /// An operator's announcement (`Announcements`): no activity, no video.
    case announcement

    package init?(_ activity: ActivityKind) {
        switch activity {
        case .like: self = .like
        case .comment: self = .comment
        case .follow: self = .follow
        case .inappropriate: return nil  // a flag is never notified
        }
    }
}

/// One inbox row, as a page of `GET /v1/notifications` reads it.
package struct NotificationRow: Sendable, Equatable {
    package let seq: Int64
    package let id: String
    package let kind: NotificationKind
    package let activityID: String?
    package let videoID: String?
    package let announcementID: String?
    package let createdAt: Int64
    package let readAt: Int64?
}

/// The SQL of the `notifications` table (the inbox).
///
/// A user's unread count (`users.unread_notifications`, the push badge) is kept by triggers
/// (migration 0006), so nothing here touches it.
package struct NotificationStore {
    package init() {}

    /// Recipients per statement of a broadcast (a new video to every user who wants them).
    package static let batchSize = 1_000

    /// One notification aimed at its recipient (`about_me`); answers its seq.
    package func insert(kind: NotificationKind, to recipientID: String, actorID: String, activityID: String?, videoID: String?,
                now: Int64, on connection: any DatabaseConnection) throws -> Int64 {
        try connection.fetchValue("""
            INSERT INTO notifications (id, user_id, kind, actor_id, activity_id, video_id, about_me, created_at)
            VALUES (\(try SecureRandom.alphanumericID()), \(recipientID), \(kind.rawValue), \(actorID), \(activityID), \(videoID), TRUE, \(now))
            RETURNING seq
            """, as: Int64.self).orThrow(column: "seq", expected: "the notification just written")
    }

    /// The same notification for each of `recipients` (none of them its target), in one
    /// statement; answers the seq range written.
    package func insert(kind: NotificationKind, to recipients: [String], actorID: String, activityID: String?, videoID: String?,
                now: Int64, on connection: any DatabaseConnection) throws -> ClosedRange<Int64>? {
        guard !recipients.isEmpty else { return nil }
        let rows = try recipients.map { recipient -> SQL in
            "(\(try SecureRandom.alphanumericID()), \(recipient), \(kind.rawValue), \(actorID), \(activityID), \(videoID), FALSE, \(now))"
        }
        let seqs = try connection.fetchAll("""
            INSERT INTO notifications (id, user_id, kind, actor_id, activity_id, video_id, about_me, created_at)
            VALUES \(SQL.joined(rows, separator: ", ")) RETURNING seq
            """).map { try $0.decode(at: 0, as: Int64.self) }
        guard let low = seqs.min(), let high = seqs.max() else { return nil }
        return low...high
    }

    /// The next `limit` users after seq `after` who want new videos, other than the uploader,
    /// with the seq of the last one: a new video's broadcast, one batch at a time.
    package func newVideoRecipients(videoID: String, after: Int64, limit: Int, on connection: any DatabaseConnection) throws -> (ids: [String], last: Int64?) {
        let rows = try connection.fetchAll("""
            SELECT u.seq, u.id FROM users u
            WHERE u.seq > \(after) AND u.notify_new_videos = TRUE AND u.banned_at IS NULL
              AND u.id <> (SELECT owner_id FROM videos WHERE id = \(videoID))
            ORDER BY u.seq LIMIT \(limit)
            """)
        return (try rows.map { try $0.decode(at: 1, as: String.self) }, try rows.last.map { try $0.decode(at: 0, as: Int64.self) })
    }

    /// The next `limit` followers of the activity's author (by follow seq after `after`) who
    /// want to hear what the people they follow do, but neither the author nor the person the
    /// activity is aimed at (who hears of it as their own, by `myActivity`).
    /// `full` says the batch took `limit` followers, so more may follow.
    package func followingRecipients(activityID: String, after: Int64, limit: Int, on connection: any DatabaseConnection) throws -> (ids: [String], last: Int64?, full: Bool) {
        let rows = try connection.fetchAll("""
            SELECT f.seq, r.id, r.notify_following_activity FROM activities a
            JOIN activities f ON f.to_user_id = a.from_user_id AND f.type = \(ActivityKind.follow.sql)
            JOIN users r ON r.id = f.from_user_id
            WHERE a.id = \(activityID) AND f.seq > \(after) AND r.id <> a.to_user_id AND r.banned_at IS NULL
            ORDER BY f.seq LIMIT \(limit)
            """)
        // The batch advances over every follower; only those who want it receive it.
        let wanted = try rows.filter { try $0.decode(at: 2, as: Bool.self) }.map { try $0.decode(at: 1, as: String.self) }
        return (wanted, try rows.last.map { try $0.decode(at: 0, as: Int64.self) }, rows.count == limit)
    }

    /// A page of the recipient's inbox, newest first, after the position `after` (a seq), or
    /// (`.newer`) above it, nearest first. Notifications about a video the viewer may not see
    /// (hidden) are left out.
    package func page(recipientID: String, viewer: Viewer, after: Int64?, direction: KeysetDirection = .older, limit: Int,
                      on connection: any DatabaseConnection) throws -> [NotificationRow] {
        let position: SQL = after.map { "AND n.seq \(direction.comparison) \($0)" } ?? ""
        return try connection.fetchAll("""
            SELECT n.seq, n.id, n.kind, n.activity_id, n.video_id, n.announcement_id, n.created_at, n.read_at
            FROM notifications n LEFT JOIN videos v ON v.id = n.video_id
            WHERE n.user_id = \(recipientID) \(position) AND (n.video_id IS NULL OR \(viewer.visibilityFilter()))
              AND \(viewer.authorFilter("n", column: "actor_id"))
            ORDER BY n.seq \(direction.order) LIMIT \(limit)
            """, reading: { reader in
            NotificationRow(
                seq: try reader.next(), id: try reader.next(),
                kind: try NotificationKind(rawValue: reader.next()).orThrow(column: "kind", expected: "a notification kind"),
                activityID: try reader.next(), videoID: try reader.next(), announcementID: try reader.next(),
                createdAt: try reader.next(), readAt: try reader.next())
        })
    }

    /// The newest seq of the recipient's notifications written at or before `time` (a refresh's
    /// horizon): read down the inbox's index from the top, so it passes only the newer rows.
    package func newestSeq(recipientID: String, createdAtOrBefore time: Int64, on connection: any DatabaseConnection) throws -> Int64? {
        try connection.fetchValue("""
            SELECT n.seq FROM notifications n WHERE n.user_id = \(recipientID) AND n.created_at <= \(time)
            ORDER BY n.seq DESC LIMIT 1
            """, as: Int64.self)
    }

    /// Marks the recipient's notification `id` and every older one read; false when `id`
    /// names none of theirs.
    package func markRead(recipientID: String, upTo id: String, now: Int64, on connection: any DatabaseConnection) throws -> Bool {
        guard let seq = try connection.fetchValue(
            "SELECT seq FROM notifications WHERE id = \(id) AND user_id = \(recipientID)", as: Int64.self) else { return false }
        // PostgreSQL finds the unread rows through their partial index. SQLite has none
        // (migration 0015 says why the bound below is exact there): the unread rows are those
        // above the newest read one, so the walk down the inbox stops at it.
        let aboveRead: SQL = connection.dialect == .postgres ? "" : """
            AND seq > COALESCE((SELECT r.seq FROM notifications r
                                WHERE r.user_id = \(recipientID) AND r.seq <= \(seq) AND r.read_at IS NOT NULL
                                ORDER BY r.seq DESC LIMIT 1), 0)
            """
        try connection.execute("""
            UPDATE notifications SET read_at = \(now)
            WHERE user_id = \(recipientID) AND seq <= \(seq) AND read_at IS NULL \(aboveRead)
            """)
        return true
    }

    /// Forgets pushes older than `before` in the like de-duplication table.
    package func purgeRecentPushes(before: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM push_recent WHERE pushed_at < \(before)")
    }

    /// Claims the push of `key` at `now` unless one went out since `since`; answers whether
    /// this one may push (like, unlike, like again within a minute pushes once).
    package func claimPush(key: String, since: Int64, now: Int64, on connection: any DatabaseConnection) throws -> Bool {
        try connection.execute("""
            INSERT INTO push_recent (key, pushed_at) VALUES (\(key), \(now))
            ON CONFLICT (key) DO UPDATE SET pushed_at = excluded.pushed_at WHERE push_recent.pushed_at < \(since)
            """) == 1
    }
}
