import CloudHooks
import JSON
import Storage
import Telemetry

/// Write-time fan-out into the feed timelines (DESIGN.md "Feeds").
///
/// A reader's home and following feeds are read from their own rows, so a page costs the
/// same however many people they follow. The cost moves to writes: a new video gets a row
/// per follower of its owner, a like, comment or follow a row per follower of its author.
///
/// - Videos: up to `syncLimit` followers are served inside the write's transaction (a normal
///   account's followers see a new video at once); the rest go through the outbox in batches
///   of `batchSize`, so an account with very many followers costs a bounded amount per
///   request and per job.
/// - Likes, comments and follows reach followers' following feeds only through the outbox,
///   whose worker runs many jobs in one transaction (`OutboxWorker`). Likes and comments
///   are the most frequent writes, and a row per follower inside each of them was most of
///   their cost: every follower's timeline is a different B-tree page written to the WAL at
///   every commit (BENCHMARKS.md). Followers see them within the worker's poll interval.
/// - Removing an activity cleans its rows up through the outbox too; until then the
///   feed's join to `activities` (on seq and time) already leaves them out.
///
/// Jobs re-check the follow at run time, so an unfollow in between wins; a job for an
/// activity deleted in between finds nothing to copy.
///
/// Hot accounts bound the home timelines (issue 15): an account with `hotFollowers` or more
/// followers is hot, and its videos are not fanned out (not by a new video, its jobs, a new
/// follow's backfill, nor `TimelineRebuild`); `FeedStore.home` merges them in at read time.
/// Without it the rows grew as followers times videos: 68 million on the social-shaped
/// benchmark, where 50 accounts held 91% of them. The rule:
/// - An account is marked hot (`feed_hot_accounts`) when a video of it is created, someone
///   follows it, or a fan-out or backfill job of it runs, while its `followers_count` has
///   reached the threshold; migration 0009 and every rebuild mark those above it too.
/// - Hot is sticky: an account that loses followers stays hot. Marking is safe at any moment,
///   because the read merges every video of a hot account the reader follows and drops
///   duplicates, so the rows fanned out before it turned hot may stay (an unfollow or a
///   deletion still removes them, as before). Unmarking would need every follower's home
///   backfilled at once, which is what a rebuild is; it does not unmark either.
/// - `feed_hot_follows` lists, per reader, the hot accounts they follow (the read's arms):
///   marking adds every current follower, a follow of a hot account adds one row, an unfollow
///   or a deleted account removes theirs. Hiding and bans need nothing: the read filters the
///   arms' videos as any video, and leaves banned hot accounts out.
package struct Timelines: Sendable {
    package struct Configuration: Sendable {
        /// Followers whose home gets a new video inside the write; the rest go to the outbox.
        package var syncLimit = 1_000
        /// Followers per outbox job.
        package var batchSize = 1_000
        /// How many of a followed user's recent activities a new follow copies into the
        /// follower's following feed (the import keeps the same depth).
        package var followingDepth = Timelines.followingDepth
        /// Followers from which an account is hot: its videos are merged into its followers'
        /// home feeds at read time instead of fanned out.
        package var hotFollowers = TimelineRebuild.defaultHotFollowers

        package init(syncLimit: Int = 1_000, batchSize: Int = 1_000, followingDepth: Int = Timelines.followingDepth,
                     hotFollowers: Int = TimelineRebuild.defaultHotFollowers) {
            self.syncLimit = syncLimit
            self.batchSize = batchSize
            self.followingDepth = followingDepth
            self.hotFollowers = hotFollowers
        }
    }

    /// How far back a following feed reaches at a follow or an import: 200 activities, ten
    /// pages. Deeper made the import of a large community write 16 million rows (BENCHMARKS.md).
    package static let followingDepth = TimelineRebuild.defaultFollowingDepth

    package let configuration: Configuration

    package init(configuration: Configuration) {
        self.configuration = configuration
    }
    private let outbox = Outbox()

    // MARK: Fan-out

    /// A new video: the owner's own home, then the owner's followers.
    package func videoCreated(videoID: String, now: Int64, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            INSERT INTO home_timeline (user_seq, created_at, video_seq, owner_seq)
            SELECT u.seq, v.created_at, v.seq, u.seq FROM videos v JOIN users u ON u.id = v.owner_id WHERE v.id = \(videoID)
            ON CONFLICT DO NOTHING
            """)
        try fanOutVideo(videoID: videoID, afterFollow: 0, limit: configuration.syncLimit, now: now, on: connection)
    }

    /// Copies a video into the home of its owner's followers whose follow comes after
    /// `afterFollow` (an activity seq), `limit` of them; enqueues the rest.
    /// Nothing for a hot owner (a job started before the owner turned hot stops there).
    package func fanOutVideo(videoID: String, afterFollow: Int64, limit: Int, now: Int64, on connection: any DatabaseConnection) throws {
        let owner: SQL = "(SELECT owner_id FROM videos WHERE id = \(videoID))"
        guard try !isHot(owner, on: connection) else { return }
        try fanOut(author: owner, afterFollow: afterFollow, limit: limit, on: connection) { last in
            try connection.execute("""
                INSERT INTO home_timeline (user_seq, created_at, video_seq, owner_seq)
                SELECT r.seq, v.created_at, v.seq, o.seq
                FROM videos v JOIN users o ON o.id = v.owner_id
                JOIN activities f ON f.to_user_id = v.owner_id AND f.type = \(ActivityKind.follow.sql)
                JOIN users r ON r.id = f.from_user_id
                WHERE v.id = \(videoID) AND f.seq > \(afterFollow) AND f.seq <= \(last)
                ON CONFLICT DO NOTHING
                """)
        } rest: { last in
            try HomeFanOut(videoID: videoID, after: last).enqueue(now: now, on: connection)
        }
    }

    /// A new like, comment or follow: the following feed of its author's followers, all
    /// through the outbox, in a job `activityDeleting` can withdraw while it waits.
    package func activityCreated(activityID: String, now: Int64, on connection: any DatabaseConnection) throws {
        // The activity's seq, if its author has a follower (one look-up of the activity).
        guard let seq = try connection.fetchValue("""
            SELECT a.seq FROM activities a
            WHERE a.id = \(activityID) AND EXISTS (SELECT 1 FROM activities f WHERE f.type = \(ActivityKind.follow.sql) AND f.to_user_id = a.from_user_id)
            """, as: Int64.self) else { return }
        try FollowingFanOut(activityID: activityID, after: 0).enqueue(idempotencyKey: Self.fanOutKey(activitySeq: seq, activityID: activityID),
                                                                      now: now, on: connection)
    }

    /// The key of an activity's first fan-out job. Led by the seq, so that consecutive keys
    /// sit side by side in the key index, on the page the last one went to (a random id first
    /// would dirty a page of it anywhere per like); the id makes it unique although SQLite may
    /// give a deleted activity's seq to the next one.
    package static func fanOutKey(activitySeq: Int64, activityID: String) -> String {
        "\(FollowingFanOut.kind):\(activitySeq):\(activityID)"
    }

    package func fanOutActivity(activityID: String, afterFollow: Int64, limit: Int, now: Int64, on connection: any DatabaseConnection) throws {
        try fanOut(author: "(SELECT from_user_id FROM activities WHERE id = \(activityID))", afterFollow: afterFollow, limit: limit, on: connection) { last in
            try connection.execute("""
                INSERT INTO following_timeline (user_seq, created_at, activity_seq, actor_seq)
                SELECT r.seq, a.created_at, a.seq, actor.seq
                FROM activities a JOIN users actor ON actor.id = a.from_user_id
                JOIN activities f ON f.to_user_id = a.from_user_id AND f.type = \(ActivityKind.follow.sql)
                JOIN users r ON r.id = f.from_user_id
                WHERE a.id = \(activityID) AND f.seq > \(afterFollow) AND f.seq <= \(last)
                ON CONFLICT DO NOTHING
                """)
        } rest: { last in
            try FollowingFanOut(activityID: activityID, after: last).enqueue(now: now, on: connection)
        }
    }

    /// The skeleton of every fan-out: find the `limit` followers of `author` (a SQL
    /// expression) whose follow comes after `afterFollow`, let `each` work on their rows up
    /// to the last of those follows, and hand the position to `rest` when more remain (with
    /// a limit of 0, everything is left to `rest`). Every step is one range of
    /// `activities_followers_by_seq` (migration 0012).
    private func fanOut(
        author: SQL, afterFollow: Int64, limit: Int, on connection: any DatabaseConnection,
        each insert: (_ lastFollow: Int64) throws -> Void, rest: (_ lastFollow: Int64) throws -> Void
    ) throws {
        var reached = afterFollow
        if limit > 0 {
            let last = try connection.fetchValue("""
                SELECT MAX(seq) FROM (
                    SELECT f.seq FROM activities f
                    WHERE f.to_user_id = \(author) AND f.type = \(ActivityKind.follow.sql) AND f.seq > \(afterFollow) ORDER BY f.seq LIMIT \(limit)
                ) AS follows
                """, as: Int64?.self) ?? nil
            guard let last else { return }
            try insert(last)
            reached = last
        }
        if try hasFollowers(of: author, after: reached, on: connection) { try rest(reached) }
    }

    /// A new follow: the followed user's videos into the follower's home (the newest
    /// `syncLimit` now, older ones through the outbox), and their recent activities into
    /// the follower's following feed.
    /// A hot target's videos are not copied: the follow is listed in `feed_hot_follows`.
    package func followed(followerID: String, targetID: String, now: Int64, on connection: any DatabaseConnection) throws {
        if try isHot("\(targetID)", on: connection) {
            try connection.execute("""
                INSERT INTO feed_hot_follows (user_seq, owner_id) SELECT seq, \(targetID) FROM users WHERE id = \(followerID)
                ON CONFLICT DO NOTHING
                """)
        } else {
            try backfillHome(followerID: followerID, targetID: targetID, before: nil, limit: configuration.syncLimit, now: now, on: connection)
        }
        try connection.execute("""
            INSERT INTO following_timeline (user_seq, created_at, activity_seq, actor_seq)
            SELECT r.seq, a.created_at, a.seq, t.seq
            FROM users r, users t
            JOIN activities a ON a.from_user_id = t.id AND a.type IN (\(ActivityKind.sql(.like, .comment, .follow)))
            WHERE r.id = \(followerID) AND t.id = \(targetID)
            ORDER BY a.created_at DESC LIMIT \(configuration.followingDepth)
            ON CONFLICT DO NOTHING
            """)
    }

    /// Copies the target's videos created before `before` (newest first, `limit` of them)
    /// into the follower's home, if the follow still stands; enqueues the rest. Nothing for a
    /// hot target: the home feed reads its videos where they are.
    package func backfillHome(followerID: String, targetID: String, before: (createdAt: Int64, seq: Int64)?, limit: Int, now: Int64, on connection: any DatabaseConnection) throws {
        guard try connection.fetchOne("SELECT 1 FROM activities WHERE type = \(ActivityKind.follow.sql) AND from_user_id = \(followerID) AND to_user_id = \(targetID)") != nil,
              try !isHot("\(targetID)", on: connection) else { return }
        let position: SQL = before.map { "AND (v.created_at, v.seq) < (\($0.createdAt), \($0.seq))" } ?? ""
        let videos = try connection.fetchAll("""
            SELECT v.created_at, v.seq FROM videos v WHERE v.owner_id = \(targetID) \(position)
            ORDER BY v.created_at DESC, v.seq DESC LIMIT \(limit + 1)
            """).map { (try $0.decode("created_at", as: Int64.self), try $0.decode("seq", as: Int64.self)) }
        guard let oldest = videos.prefix(limit).last else { return }
        try connection.execute("""
            INSERT INTO home_timeline (user_seq, created_at, video_seq, owner_seq)
            SELECT r.seq, v.created_at, v.seq, t.seq FROM users r, users t JOIN videos v ON v.owner_id = t.id
            WHERE r.id = \(followerID) AND t.id = \(targetID) AND (v.created_at, v.seq) >= (\(oldest.0), \(oldest.1)) \(position)
            ON CONFLICT DO NOTHING
            """)
        if videos.count > limit {
            try HomeBackfill(followerID: followerID, targetID: targetID, beforeTime: oldest.0, beforeSeq: oldest.1).enqueue(now: now, on: connection)
        }
    }

    // MARK: Clean-up

    /// An unfollow: the target's videos and activities leave the follower's feeds. The
    /// activities are deleted by primary key through the target's own (`activities_from`):
    /// the following feed has no index by actor, which every fan-out row would pay for
    /// (migration 0011).
    package func unfollowed(followerID: String, targetID: String, on connection: any DatabaseConnection) throws {
        guard let follower = try seq(ofUser: followerID, on: connection), let target = try seq(ofUser: targetID, on: connection) else { return }
        try connection.execute("DELETE FROM home_timeline WHERE user_seq = \(follower) AND owner_seq = \(target)")
        try connection.execute("""
            DELETE FROM following_timeline WHERE (user_seq, created_at, activity_seq) IN (
                SELECT CAST(\(follower) AS BIGINT), a.created_at, a.seq FROM activities a WHERE a.from_user_id = \(targetID))
            """)
        try connection.execute("DELETE FROM feed_hot_follows WHERE user_seq = \(follower) AND owner_id = \(targetID)")
    }

    /// An activity about to be deleted: the outbox removes its rows (the feed query's join
    /// leaves them out from now on). When its fan-out job is still waiting (a like taken back
    /// within moments, or during a burst the worker has not caught up with) the job is
    /// withdrawn, and only followers whose follow came after the activity can hold a row
    /// (`followed` copied it): the clean-up starts after them, and is not enqueued at all
    /// when there are none, the usual case.
    package func activityDeleting(_ activity: Activity, now: Int64, on connection: any DatabaseConnection) throws {
        guard let seq = try connection.fetchValue("SELECT seq FROM activities WHERE id = \(activity.id)", as: Int64.self) else { return }
        let neverFannedOut = try outbox.withdraw(idempotencyKey: Self.fanOutKey(activitySeq: seq, activityID: activity.id), on: connection)
        try removeActivity(actorID: activity.fromUserID, activitySeq: seq, createdAt: activity.createdAt,
                           afterFollow: neverFannedOut ? seq : 0, limit: 0, now: now, on: connection)
    }

    /// Deletes an activity's rows by primary key through its author's followers whose follow
    /// comes after `afterFollow` (the only readers that can hold it: an unfollow already took
    /// it away from the others), `limit` of them; enqueues the rest.
    package func removeActivity(actorID: String, activitySeq: Int64, createdAt: Int64, afterFollow: Int64, limit: Int, now: Int64, on connection: any DatabaseConnection) throws {
        try fanOut(author: "\(actorID)", afterFollow: afterFollow, limit: limit, on: connection) { last in
            try connection.execute("""
                DELETE FROM following_timeline WHERE (user_seq, created_at, activity_seq) IN (
                    SELECT r.seq, CAST(\(createdAt) AS BIGINT), CAST(\(activitySeq) AS BIGINT)
                    FROM activities f JOIN users r ON r.id = f.from_user_id
                    WHERE f.to_user_id = \(actorID) AND f.type = \(ActivityKind.follow.sql) AND f.seq > \(afterFollow) AND f.seq <= \(last))
                """)
        } rest: { last in
            try FollowingCleanup(actorID: actorID, activitySeq: activitySeq, createdAt: createdAt, after: last).enqueue(now: now, on: connection)
        }
    }

    /// A video about to be deleted: its rows (the owner's and their followers') and those of
    /// every activity about it, all found by primary key.
    package func videoDeleting(videoID: String, on connection: any DatabaseConnection) throws {
        try connection.execute("""
            DELETE FROM home_timeline WHERE (user_seq, created_at, video_seq) IN (
                SELECT o.seq, v.created_at, v.seq FROM videos v JOIN users o ON o.id = v.owner_id WHERE v.id = \(videoID)
                UNION ALL
                SELECT r.seq, v.created_at, v.seq FROM videos v
                JOIN activities f ON f.to_user_id = v.owner_id AND f.type = \(ActivityKind.follow.sql)
                JOIN users r ON r.id = f.from_user_id
                WHERE v.id = \(videoID))
            """)
        try connection.execute("""
            DELETE FROM following_timeline WHERE (user_seq, created_at, activity_seq) IN (
                SELECT r.seq, a.created_at, a.seq FROM activities a
                JOIN activities f ON f.to_user_id = a.from_user_id AND f.type = \(ActivityKind.follow.sql)
                JOIN users r ON r.id = f.from_user_id
                WHERE a.video_id = \(videoID))
            """)
    }

    /// An account about to be deleted: its own feeds (its videos and activities are removed
    /// through their own hooks).
    package func accountDeleting(userID: String, on connection: any DatabaseConnection) throws {
        guard let reader = try seq(ofUser: userID, on: connection) else { return }
        try connection.execute("DELETE FROM home_timeline WHERE user_seq = \(reader)")
        try connection.execute("DELETE FROM following_timeline WHERE user_seq = \(reader)")
        try connection.execute("DELETE FROM feed_hot_follows WHERE user_seq = \(reader)")
    }

    // MARK: Outbox jobs

    /// The feed lane's jobs (`FeedJobs.swift`): the fan-outs and clean-ups too large for one
    /// request, and the fan-out of many new activities at once (`OutboxWorker.GroupHandler`).
    package func jobs(clock: any WallClock) throws -> OutboxJobTable {
        let batch = configuration.batchSize
        var table = OutboxJobTable()
        try table.on(HomeFanOut.self) { job, connection in
            try fanOutVideo(videoID: job.videoID, afterFollow: job.after, limit: batch, now: clock.nowMillis(), on: connection)
        }
        try table.on(FollowingFanOut.self) { job, connection in
            try fanOutActivity(activityID: job.activityID, afterFollow: job.after, limit: batch, now: clock.nowMillis(), on: connection)
        }
        try table.on(FollowingCleanup.self) { job, connection in
            try removeActivity(actorID: job.actorID, activitySeq: job.activitySeq, createdAt: job.createdAt, afterFollow: job.after,
                               limit: batch, now: clock.nowMillis(), on: connection)
        }
        try table.on(HomeBackfill.self) { job, connection in
            try backfillHome(followerID: job.followerID, targetID: job.targetID, before: (job.beforeTime, job.beforeSeq), limit: batch,
                             now: clock.nowMillis(), on: connection)
        }
        try table.onGroups(FollowingFanOut.self) { jobs, connection in
            let inputs = jobs.map(\.input)
            let finished = try fanOutActivities(inputs.filter { $0.after == 0 }.map(\.activityID), maxFollowers: batch, on: connection)
            for input in inputs where !(input.after == 0 && finished.contains(input.activityID)) {
                try fanOutActivity(activityID: input.activityID, afterFollow: input.after, limit: batch, now: clock.nowMillis(), on: connection)
            }
        }
        return table
    }

    /// The fan-out of many new activities in one statement: every activity of `activityIDs`
    /// whose author has at most `maxFollowers` followers goes to all of them, the rows
    /// inserted in the timeline's key order, so each B-tree page is visited once, in order
    /// (a job a statement visited them in follower order for each activity again). Answers
    /// the activities it finished: those it fanned out and those gone since (an undone like:
    /// nothing to fan out). The others, of authors with more followers, whose fan-out goes in
    /// bounded steps, are left to the caller. The follower count only chooses the path:
    /// every follow present is fanned out either way. SQLite only (`json_each`), like the
    /// group runs of `OutboxWorker`. The followers index is named because without statistics
    /// SQLite picks `activities_to_recent`, which also walks every like and comment the author
    /// received: three times slower.
    package func fanOutActivities(_ activityIDs: [String], maxFollowers: Int, on connection: any DatabaseConnection) throws -> Set<String> {
        guard !activityIDs.isEmpty else { return [] }
        let present = try connection.fetchAll("""
            SELECT a.id, u.followers_count <= \(maxFollowers) AS small FROM activities a JOIN users u ON u.id = a.from_user_id
            WHERE a.id IN (SELECT value FROM json_each(\(JSONValue.arrayText(activityIDs))))
            """).map { (id: try $0.decode("id", as: String.self), small: try $0.decode("small", as: Bool.self)) }
        let taken = present.filter(\.small).map(\.id)
        let finished = Set(activityIDs).subtracting(present.filter { !$0.small }.map(\.id))
        guard !taken.isEmpty else { return finished }
        try connection.execute("""
            INSERT INTO following_timeline (user_seq, created_at, activity_seq, actor_seq)
            SELECT r.seq, a.created_at, a.seq, actor.seq
            FROM activities a JOIN users actor ON actor.id = a.from_user_id
            JOIN activities f INDEXED BY activities_followers ON f.to_user_id = a.from_user_id AND f.type = \(ActivityKind.follow.sql)
            JOIN users r ON r.id = f.from_user_id
            WHERE a.id IN (SELECT value FROM json_each(\(JSONValue.arrayText(taken))))
            ORDER BY r.seq, a.created_at, a.seq
            ON CONFLICT DO NOTHING
            """)
        return finished
    }

    // MARK: Helpers

    /// Whether the user `user` (a SQL expression with its own binds) is hot, marking them
    /// first when their followers have reached `hotFollowers` (sticky: see the type). Marking
    /// lists every current follower in `feed_hot_follows`, once per account.
    private func isHot(_ user: SQL, on connection: any DatabaseConnection) throws -> Bool {
        let marked = try connection.execute("""
            INSERT INTO feed_hot_accounts (user_id)
            SELECT id FROM users WHERE id = \(user) AND followers_count >= \(configuration.hotFollowers)
            ON CONFLICT DO NOTHING
            """)
        if marked > 0 {
            try connection.execute("""
                INSERT INTO feed_hot_follows (user_seq, owner_id)
                SELECT r.seq, f.to_user_id FROM activities f JOIN users r ON r.id = f.from_user_id
                WHERE f.type = \(ActivityKind.follow.sql) AND f.to_user_id = \(user)
                ON CONFLICT DO NOTHING
                """)
            return true
        }
        return try connection.fetchOne("SELECT 1 FROM feed_hot_accounts WHERE user_id = \(user)") != nil
    }

    /// Whether the user `user` (a SQL expression with its own binds) has followers whose follow comes after `follow`.
    private func hasFollowers(of user: SQL, after follow: Int64, on connection: any DatabaseConnection) throws -> Bool {
        try connection.fetchOne("SELECT 1 FROM activities WHERE type = \(ActivityKind.follow.sql) AND to_user_id = \(user) AND seq > \(follow) LIMIT 1") != nil
    }

    private func seq(ofUser id: String, on connection: any DatabaseConnection) throws -> Int64? {
        try connection.fetchValue("SELECT seq FROM users WHERE id = \(id)", as: Int64.self)
    }
}
