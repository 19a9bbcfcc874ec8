import Auth
import Community
import Storage
import VideoRegistry

/// Videos as the API shows them (API.md "Videos", "Rallies", the profile's videos) and the
/// lists on a video: each read in one read transaction with the presenter's selection for
/// the caller.
struct VideoReads: Sendable {
    let lists: PagedLists
    let videos: Videos

    private var database: any Database { lists.database }

    /// The video the caller may see (404 otherwise, as `Videos.visible` decides).
    func visible(id: String, for identity: Accounts.Identity?) throws -> VideoJSON {
        try database.read { connection in
            try videos.visible(id: id, viewer: Viewer(identity), selecting: Presenter.videoSelection(for: identity), on: connection)
        }
    }

    /// A video just written, as the caller sees it.
    func video(_ video: Video, for identity: Accounts.Identity?) throws -> VideoJSON {
        try database.read { connection in try Presenter(identity, connection).video(id: video.id) }
    }

    /// A user's videos, newest first.
    func byOwner(_ userID: String, for identity: Accounts.Identity?, page: PageRequest) throws -> Page<VideoJSON> {
        try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                try VideoStore().byOwner(userID, viewer: Viewer(identity), after: try Positions.time(from), direction: direction, limit: limit,
                                         selecting: Presenter.videoSelection(for: identity), on: connection)
            },
            position: { Positions.time($0.video.createdAt, $0.video.id) },
            horizon: lists.byTime({ $0.video.createdAt }, tiebreak: Positions.timeTiebreak),
            present: { videos, _ in videos })
    }

    /// A rally day's videos, newest first or (`top`) most liked first; only the first refreshes.
    func rallyDay(_ rallyID: String, day: Int, top: Bool, for identity: Accounts.Identity?, page: PageRequest) throws -> Page<VideoJSON> {
        let selection = Presenter.videoSelection(for: identity)
        guard !top else {
            return try lists.page(page,
                fetch: { after, limit, connection in
                    try VideoStore().topByDay(rallyID: rallyID, day: day, viewer: Viewer(identity), after: try Positions.top(after), limit: limit,
                                              selecting: selection, on: connection)
                },
                position: { Positions.top($0.video.likesCount, $0.video.createdAt, $0.video.id) },
                present: { videos, _ in videos })
        }
        return try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                try VideoStore().byDay(rallyID: rallyID, day: day, viewer: Viewer(identity), after: try Positions.time(from), direction: direction,
                                       limit: limit, selecting: selection, on: connection)
            },
            position: { Positions.time($0.video.createdAt, $0.video.id) },
            horizon: lists.byTime({ $0.video.createdAt }, tiebreak: Positions.timeTiebreak),
            present: { videos, _ in videos })
    }

    /// Who liked a video, most recent like first.
    func likes(of video: Video, for identity: Accounts.Identity?, page: PageRequest) throws -> Page<UserJSON> {
        try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                try ActivityStore().likes(videoID: video.id, viewer: Viewer(identity), after: try Positions.time(from), direction: direction,
                                          limit: limit, on: connection)
            },
            position: { Positions.time($0.createdAt, $0.id) },
            horizon: lists.byTime({ $0.createdAt }, tiebreak: Positions.timeTiebreak),
            present: { likes, connection in try Presenter(identity, connection).users(ids: likes.map(\.fromUserID)) })
    }

    /// A video's comments, oldest first; a refresh reads the same way up from its mark (and,
    /// like every refresh, answers newest first).
    func comments(on video: Video, for identity: Accounts.Identity?, page: PageRequest) throws -> Page<ActivityJSON> {
        try lists.refreshablePage(page, newestFirst: false,
            fetch: { from, _, limit, connection in
                try ActivityStore().comments(videoID: video.id, viewer: Viewer(identity), after: try Positions.time(from), limit: limit,
                                             selecting: Presenter.activitySelection(for: identity), on: connection)
            },
            position: { Positions.time($0.activity.createdAt, $0.activity.id) },
            horizon: lists.byTime({ $0.activity.createdAt }, tiebreak: Positions.timeTiebreak),
            present: { comments, _ in comments })
    }
}
