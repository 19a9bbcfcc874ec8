import Auth
import Community
import HTTP
import JSON
import Storage
import Telemetry
import VideoRegistry

/// API.md "Personal data": one account's data as one JSON document, made a page at a time, for
/// `GET /v1/users/me/export` (a streamed response) and `pacenote user export` (standard output).
///
/// `{"user": User(me), "videos", "comments", "likes", "flags", "following", "followers",
/// "notifications", "installations", "sessions"}`, each list oldest first. Other users are
/// public User objects (no email, no `isFollowing`); no password hash, session token or its
/// hash, and of a device token only its last characters (`ExportJSON.deviceTokenEnd`).
///
/// Each call of `next(into:)` is one bounded statement in a read transaction of its own: a
/// keyset page (`(created_at, id) > last`, or `seq`, on an index led by the account) of at
/// most `maxPageRows` rows, sized so a part stays near `targetPartBytes`. Not one transaction
/// for the whole export: on SQLite a read transaction held for the seconds a large export
/// takes to send (at the client's pace) keeps the WAL from being checkpointed past its
/// snapshot, so it grows for every writer; on PostgreSQL it pins its snapshot, holding back
/// vacuum of every table, and it would hold one of the 4 reader connections for as long as
/// the slowest client reads. What separate pages give instead: each page is consistent in
/// itself; a row that exists from the start to the end of the export appears exactly once
/// (keys never change, and the pages walk them in order); a row added or deleted during it
/// may or may not appear; `user` and its counters are as of the start.
public struct AccountExport: ResponseStreamProducer {
    /// Rows of a page at most, and of a section's first page (before its rows' size is known).
    static let maxPageRows = 1_000
    static let firstPageRows = 100
    /// What a part should weigh: the next page's rows are this over the last page's bytes per row.
    static let targetPartBytes = 256 * 1024

    let database: any Database
    let userID: String
    let viewer: Viewer
    /// Sessions that expired before this are left out (maintenance deletes them later).
    let now: Int64
    let logger: Logger?

    private var stage: Stage = .start
    private var position: Position?
    private var sectionHasRows = false
    private var pageRows = Self.firstPageRows
    /// What was sent, for the log line at the end.
    private var rows = 0
    private var bytes = 0
    private let started = ContinuousClock.now

    enum Stage: Equatable {
        case start
        case section(Section)
        case done
    }

    /// The lists, in the document's order.
    enum Section: CaseIterable {
        case videos, comments, likes, flags, following, followers, notifications, installations, sessions

        var key: StaticString {
            switch self {
            case .videos: "videos"
            case .comments: "comments"
            case .likes: "likes"
            case .flags: "flags"
            case .following: "following"
            case .followers: "followers"
            case .notifications: "notifications"
            case .installations: "installations"
            case .sessions: "sessions"
            }
        }

        var next: Section? {
            let all = Self.allCases
            let index = all.firstIndex(of: self)!
            return index + 1 < all.count ? all[index + 1] : nil
        }
    }

    /// A keyset position within a section, never written anywhere.
    enum Position {
        case time(Int64, String)
        case seq(Int64)
        case text(String)
    }

    /// The export of `account` as it sees its own data (`viewer`: its inbox keeps the rules of
    /// `GET /v1/notifications` for its role). `logger` gets one line when it ends.
    public init(database: any Database, account: Account, now: Int64, logger: Logger? = nil) {
        self.database = database
        userID = account.id
        viewer = Viewer(userID: account.id, canModerate: account.role.canModerate)
        self.now = now
        self.logger = logger
    }

    public mutating func next(into chunk: inout [UInt8]) throws -> Bool {
        switch stage {
        case .start:
            let userID = self.userID
            guard let (account, methods) = try database.read({ connection in
                try AccountStore().find(id: userID, on: connection).map { ($0, try SignInMethods.read(userID: userID, on: connection)) }
            }) else {
                throw ExportError.accountGone
            }
            var writer = JSONWriter(capacity: 1_024)
            UserJSON(account: account, view: .owner(methods)).encode(to: &writer)
            append(#"{"user":"#, to: &chunk)
            chunk += writer.bytes
            open(.videos, in: &chunk)
        case .section(let section):
            let limit = pageRows
            let query = PageQuery(userID: userID, viewer: viewer, now: now, after: position, limit: limit)
            let page = try database.read { connection in try query.run(section, on: connection) }
            if page.count > 0 {
                if sectionHasRows { chunk.append(UInt8(ascii: ",")) }
                chunk += page.bytes
                sectionHasRows = true
                position = page.last
                rows += page.count
                pageRows = max(10, min(Self.maxPageRows, Self.targetPartBytes * page.count / max(1, page.bytes.count)))
            }
            if page.count < limit {
                chunk.append(UInt8(ascii: "]"))
                if let following = section.next {
                    open(following, in: &chunk)
                } else {
                    chunk.append(UInt8(ascii: "}"))
                    stage = .done
                }
            }
        case .done:
            break
        }
        bytes += chunk.count
        return stage != .done
    }

    public mutating func finish(_ end: ResponseStreamEnd) {
        // A HEAD, or a response never sent: no export was made, nothing to say.
        guard let logger, bytes > 0 || stage != .start else { return }
        let millis = (ContinuousClock.now - started).components
        let elapsed = String(millis.seconds * 1_000 + millis.attoseconds / 1_000_000_000_000_000)
        let outcome = switch end {
        case .completed: "completed"
        case .abandoned: "abandoned"
        case .failed: "failed"
        }
        logger.info("data export ended", ["user": userID, "end": outcome, "rows": String(rows), "bytes": String(bytes), "ms": elapsed])
    }

    /// Writes the whole document to `write`, part by part (`pacenote user export`).
    public mutating func write(to write: ([UInt8]) throws -> Void) throws {
        var chunk: [UInt8] = []
        var more = true
        while more {
            chunk.removeAll(keepingCapacity: true)
            more = try next(into: &chunk)
            try write(chunk)
        }
    }

    private mutating func open(_ section: Section, in chunk: inout [UInt8]) {
        chunk.append(UInt8(ascii: ","))
        chunk.append(UInt8(ascii: "\""))
        append(section.key, to: &chunk)
        append(#"":["#, to: &chunk)
        stage = .section(section)
        position = nil
        sectionHasRows = false
        pageRows = Self.firstPageRows
    }

    private func append(_ text: StaticString, to chunk: inout [UInt8]) {
        text.withUTF8Buffer { chunk.append(contentsOf: $0) }
    }
}

/// Why an export could not go on.
public enum ExportError: Error, SafelyDescribedError {
    /// The account was deleted before its export began.
    case accountGone

    public var description: String { "the account is gone" }
}

/// One page of one section: its rows as comma-separated JSON values, how many, and the last one's key.
struct ExportPage {
    var bytes: [UInt8] = []
    var count = 0
    var last: AccountExport.Position?
}

/// The statements of the export's pages. Each is led by the account's id on an index that
/// starts with it (`videos_owner_recent`, `activities_from`, `activities_to`,
/// `notifications_inbox`, `installations_user`, `sessions_user_id`), so a page is one range
/// seek of `limit` rows at any depth; activity types are SQL literals (`ActivityKind.sql`).
struct PageQuery {
    let userID: String
    let viewer: Viewer
    let now: Int64
    let after: AccountExport.Position?
    let limit: Int

    func run(_ section: AccountExport.Section, on connection: any DatabaseConnection) throws -> ExportPage {
        // A fresh writer per run: a page read again (a driver retrying) starts over.
        var writer = JSONWriter(capacity: 64 * 1024)
        var page = ExportPage()
        let items: [AccountExport.Position]
        switch section {
        case .videos:
            items = try connection.fetchAll("""
                SELECT v.id, v.youtube_id, v.title, v.description, v.rally_id, v.day, v.hidden, v.likes_count, v.comments_count, \
                v.created_at, v.updated_at
                FROM videos v WHERE v.owner_id = \(userID) \(afterTime("v")) ORDER BY v.created_at, v.id LIMIT \(limit)
                """) { reader in try ExportJSON.video(&reader, to: &writer) }
        case .comments, .likes, .flags:
            let kind: ActivityKind = section == .comments ? .comment : section == .likes ? .like : .inappropriate
            items = try connection.fetchAll("""
                SELECT a.id, a.video_id, a.content, a.created_at FROM activities a
                WHERE a.from_user_id = \(userID) AND a.type = \(kind.sql) \(afterTime("a"))
                ORDER BY a.created_at, a.id LIMIT \(limit)
                """) { reader in try ExportJSON.activity(kind, &reader, to: &writer) }
        case .following:
            items = try connection.fetchAll("""
                SELECT a.id, a.created_at, \(Presenter.targetProfileColumns) FROM activities a JOIN users tu ON tu.id = a.to_user_id
                WHERE a.from_user_id = \(userID) AND a.type = \(ActivityKind.follow.sql) \(afterTime("a"))
                ORDER BY a.created_at, a.id LIMIT \(limit)
                """) { reader in try ExportJSON.follow(&reader, to: &writer) }
        case .followers:
            items = try connection.fetchAll("""
                SELECT a.id, a.created_at, \(Presenter.actorProfileColumns) FROM activities a JOIN users fu ON fu.id = a.from_user_id
                WHERE a.to_user_id = \(userID) AND a.type = \(ActivityKind.follow.sql) \(afterTime("a"))
                ORDER BY a.created_at, a.id LIMIT \(limit)
                """) { reader in try ExportJSON.follow(&reader, to: &writer) }
        case .notifications:
            // The inbox's rules (`NotificationStore.page`): a video the account may not see, or
            // an actor who is banned, is not listed.
            let seq: SQL = if case .seq(let seq) = after { "AND n.seq > \(seq)" } else { "" }
            items = try connection.fetchAll("""
                SELECT n.seq, n.id, n.kind, n.activity_id, n.video_id, n.created_at, n.read_at, \(Presenter.actorProfileColumns)
                FROM notifications n JOIN users fu ON fu.id = n.actor_id LEFT JOIN videos v ON v.id = n.video_id
                WHERE n.user_id = \(userID) \(seq) AND (n.video_id IS NULL OR \(viewer.visibilityFilter()))
                  AND \(viewer.authorFilter("n", column: "actor_id"))
                ORDER BY n.seq LIMIT \(limit)
                """) { reader in try ExportJSON.notification(&reader, to: &writer) }
        case .installations:
            let id: SQL = if case .text(let id) = after { "AND i.id > \(id)" } else { "" }
            items = try connection.fetchAll("""
                SELECT i.id, i.platform, i.device_token, i.locale, i.created_at, i.updated_at FROM installations i
                WHERE i.user_id = \(userID) \(id) ORDER BY i.id LIMIT \(limit)
                """) { reader in try ExportJSON.installation(&reader, to: &writer) }
        case .sessions:
            // The token's hash is only the page's position, read and compared here: never written.
            items = try connection.fetchAll("""
                SELECT s.created_at, s.token_hash, s.last_used_at FROM sessions s
                WHERE s.user_id = \(userID) AND s.expires_at > \(now) \(afterTime("s", id: "token_hash"))
                ORDER BY s.created_at, s.token_hash LIMIT \(limit)
                """) { reader in try ExportJSON.session(&reader, to: &writer) }
        }
        page.bytes = writer.bytes
        page.count = items.count
        page.last = items.last
        return page
    }

    /// `AND (alias.created_at, alias.id) > (last)` after the first page.
    private func afterTime(_ alias: String, id: String = "id") -> SQL {
        guard case .time(let createdAt, let lastID) = after else { return "" }
        return "AND (\(unsafe: alias).created_at, \(unsafe: alias).\(unsafe: id)) > (\(createdAt), \(lastID))"
    }
}

/// The export's objects, written from their rows in place.
enum ExportJSON {
    /// A video of the account's own: the Video object's own fields (its owner is the account,
    /// not repeated), hidden ones included, with `updatedAt`.
    static func video(_ reader: inout RowReader, to writer: inout JSONWriter) throws -> AccountExport.Position {
        writer.beginObject()
        let (id, youtubeID) = try VideoJSON.writeLeadingFields(reading: &reader, to: &writer)
        writer.field("hidden", try reader.next(as: Bool.self))
        writer.field("likesCount", try reader.next(as: Int64.self))
        writer.field("commentsCount", try reader.next(as: Int64.self))
        writer.field("watchUrl", youtubeID.watchURL)
        let createdAt: Int64 = try reader.next()
        writer.field("createdAt", timestampMillis: createdAt)
        writer.field("updatedAt", timestampMillis: try reader.next())
        writer.endObject()
        return .time(createdAt, id)
    }

    /// A comment `{id, videoId, content, createdAt}`, a like `{id, videoId, createdAt}` or a
    /// flag `{id, videoId, reason, createdAt}` the account made.
    static func activity(_ kind: ActivityKind, _ reader: inout RowReader, to writer: inout JSONWriter) throws -> AccountExport.Position {
        writer.beginObject()
        let id: String = try reader.next()
        writer.field("id", id)
        try writer.field("videoId", textFrom: &reader)
        switch kind {
        case .comment:
            try writer.field("content", textFrom: &reader)
        case .inappropriate:
            try writer.field("reason", textFrom: &reader)
        case .like, .follow:
            reader.skip(1)
        }
        let createdAt: Int64 = try reader.next()
        writer.field("createdAt", timestampMillis: createdAt)
        writer.endObject()
        return .time(createdAt, id)
    }

    /// `{user: User, createdAt}`: someone the account follows, or a follower.
    static func follow(_ reader: inout RowReader, to writer: inout JSONWriter) throws -> AccountExport.Position {
        let id: String = try reader.next()
        let createdAt: Int64 = try reader.next()
        writer.beginObject()
        writer.key("user")
        try Presenter.writeUser(&reader, callerID: nil, to: &writer)
        writer.field("createdAt", timestampMillis: createdAt)
        writer.endObject()
        return .time(createdAt, id)
    }

    /// `{id, kind, actor: User, activityId, videoId, createdAt, readAt}`: one of the inbox.
    static func notification(_ reader: inout RowReader, to writer: inout JSONWriter) throws -> AccountExport.Position {
        let seq: Int64 = try reader.next()
        writer.beginObject()
        try writer.field("id", textFrom: &reader)
        try writer.field("kind", textFrom: &reader)
        try writer.field("activityId", textFrom: &reader)
        try writer.field("videoId", textFrom: &reader)
        writer.field("createdAt", timestampMillis: try reader.next())
        writer.key("readAt")
        if let readAt = try reader.next(as: Int64?.self) { writer.timestamp(millisecondsSince1970: readAt) } else { writer.null() }
        writer.key("actor")
        try Presenter.writeUser(&reader, callerID: nil, to: &writer)
        writer.endObject()
        return .seq(seq)
    }

    /// `{id, platform, locale, deviceTokenEnd, createdAt, updatedAt}`: a registered device.
    static func installation(_ reader: inout RowReader, to writer: inout JSONWriter) throws -> AccountExport.Position {
        writer.beginObject()
        let id: String = try reader.next()
        writer.field("id", id)
        try writer.field("platform", textFrom: &reader)
        let token: String = try reader.next()
        try writer.field("locale", textFrom: &reader)
        writer.field("deviceTokenEnd", deviceTokenEnd(token))
        writer.field("createdAt", timestampMillis: try reader.next())
        writer.field("updatedAt", timestampMillis: try reader.next())
        writer.endObject()
        return .text(id)
    }

    /// `{createdAt, lastUsedAt}`: a live session.
    static func session(_ reader: inout RowReader, to writer: inout JSONWriter) throws -> AccountExport.Position {
        let createdAt: Int64 = try reader.next()
        let key: String = try reader.next()
        writer.beginObject()
        writer.field("createdAt", timestampMillis: createdAt)
        writer.field("lastUsedAt", timestampMillis: try reader.next())
        writer.endObject()
        return .time(createdAt, key)
    }

    /// Characters of a device token an export keeps: its last 6 (the token is at least 16).
    static let deviceTokenEndLength = 6

    /// The end of a device token, enough for its owner to tell one device from another, and of
    /// no use for pushing to it: the whole token is an address APNs or FCM deliver to for
    /// anyone holding the app's push credentials, and an export file travels further (mail,
    /// cloud drives) than the database.
    static func deviceTokenEnd(_ token: String) -> String {
        String(token.suffix(deviceTokenEndLength))
    }
}

extension AccountExport {
    /// `pacenote user export USERNAME`: the export of the account with this username (any
    /// case), banned or not, with no daily limit; nil when there is none. `publicURL` is the
    /// base of the pictures' URLs, as `serve --public-url` makes them (paths without it).
    public static func ofUser(username: String, database: any Database, now: Int64, publicURL: String?) throws -> AccountExport? {
        PictureLinks.configure(publicURL: publicURL)
        guard let account = try database.read({ try AccountStore().find(username: username, on: $0) }) else { return nil }
        return AccountExport(database: database, account: account, now: now)
    }
}
