import Auth
import Community
import Storage
import VideoRegistry

/// What each page shows, read as an anonymous API reader sees it (`Viewer.anonymous`: hidden
/// videos, banned owners' videos and banned authors' comments left out, banned accounts not
/// found), each page in one read transaction with a fixed number of statements (a video page
/// two: the video with its owner and rally, then its comments, unless it has none; a day three: the rally, the top
/// and the recent list; a user two; a rally two), each list one keyset-paged statement with
/// its users joined, never a query per item. The statements are the stores' that `/v1` uses, with this module's selections.
struct WebReads: Sendable {
    let database: any Database
    private let viewer = Viewer.anonymous

    /// How many items a list page shows.
    /// How many items a list page shows: a day's 5 most liked and 15 most recent (20 cards, as
    /// `/v1`'s default page; each is a 480 x 360 thumbnail on a phone), 20 of a user's videos,
    /// 50 comments.
    static let pageSize = 20
    static let dayRecentSize = 15
    static let topSize = 5
    static let commentsPageSize = 50

    init(database: any Database) {
        self.database = database
    }

    struct VideoPage: Equatable {
        let video: WebVideo
        let rallyName: String
        let comments: [WebComment]
        /// Where the next page of comments starts, when there is one.
        let moreComments: WebCursor?
    }

    /// The video and its first (or `after`'s) comments, oldest first; nil if the anonymous
    /// reader may not see it.
    func video(id: String, commentsAfter after: WebCursor?) throws -> VideoPage? {
        try database.read { connection in
            guard let (video, rallyName) = try VideoStore().find(id: id, viewer: viewer, selecting: WebVideo.withRallyName, on: connection) else {
                return nil
            }
            // The stored counter is exact (API.md "Counters"): with no comment at all there is
            // nothing to list, and the page is one statement.
            let comments = video.video.commentsCount == 0 ? [] : try ActivityStore().comments(
                videoID: id, viewer: viewer, after: after.map { ($0.createdAt, $0.id) },
                limit: Self.commentsPageSize + 1, selecting: WebComment.selection, on: connection)
            let (shown, next) = Self.split(comments, limit: Self.commentsPageSize) { WebCursor(createdAt: $0.createdAt, id: $0.id) }
            return VideoPage(video: video, rallyName: rallyName, comments: shown, moreComments: next)
        }
    }

    struct UserPage: Equatable {
        let account: Account
        let videos: [WebVideo]
        let older: WebCursor?
    }

    /// The account `name` names (a username in any case, or an id, as `/v1/users/{idOrUsername}`)
    /// and its videos, newest first; nil when there is none or it is banned.
    func user(_ name: String, before: WebCursor?) throws -> UserPage? {
        try database.read { connection in
            guard let account = try AccountStore().find(idOrUsername: name, on: connection), viewer.canSee(account) else { return nil }
            let videos = try VideoStore().byOwner(account.id, viewer: viewer, after: before.map { ($0.createdAt, $0.id) },
                                                  limit: Self.pageSize + 1, selecting: WebVideo.selection, on: connection)
            let (shown, next) = Self.split(videos, limit: Self.pageSize) { WebCursor(createdAt: $0.video.createdAt, id: $0.video.id) }
            return UserPage(account: account, videos: shown, older: next)
        }
    }

    struct RallyPage: Equatable {
        let rally: Rally
        /// Its first video (earliest day, first registered): the page's preview image.
        let first: WebVideo?
    }

    func rally(id: String) throws -> RallyPage? {
        try database.read { connection in
            guard let rally = try RallyStore().find(id: id, on: connection) else { return nil }
            return RallyPage(rally: rally, first: try VideoStore().first(ofRally: id, viewer: viewer, selecting: WebVideo.selection, on: connection))
        }
    }

    struct DayPage: Equatable {
        let rally: Rally
        let day: Int
        /// The most liked, then newest (the first `topSize`).
        let top: [WebVideo]
        /// Newest first, from `before`.
        let recent: [WebVideo]
        let older: WebCursor?
    }

    /// A rally day's videos, top and recent; nil when the rally or the day does not exist.
    func day(rallyID: String, day: Int, before: WebCursor?) throws -> DayPage? {
        try database.read { connection in
            guard let rally = try RallyStore().find(id: rallyID, on: connection), rally.hasDay(day) else { return nil }
            let store = VideoStore()
            let top = try store.topByDay(rallyID: rallyID, day: day, viewer: viewer, after: nil, limit: Self.topSize,
                                         selecting: WebVideo.selection, on: connection)
            let recent = try store.byDay(rallyID: rallyID, day: day, viewer: viewer, after: before.map { ($0.createdAt, $0.id) },
                                         limit: Self.dayRecentSize + 1, selecting: WebVideo.selection, on: connection)
            let (shown, next) = Self.split(recent, limit: Self.dayRecentSize) { WebCursor(createdAt: $0.video.createdAt, id: $0.video.id) }
            return DayPage(rally: rally, day: day, top: top, recent: shown, older: next)
        }
    }

    /// The first `limit` items, and the position after the last of them when one more was read.
    private static func split<Item>(_ items: [Item], limit: Int, position: (Item) -> WebCursor) -> ([Item], WebCursor?) {
        guard items.count > limit else { return (items, nil) }
        let shown = Array(items.prefix(limit))
        return (shown, shown.last.map(position))
    }
}
