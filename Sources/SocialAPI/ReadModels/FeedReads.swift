import Auth
import Community
import Storage
import VideoRegistry

/// The caller's feeds (API.md "Feeds"), each page one statement in one read transaction,
/// with the presenter's selection for the caller.
struct FeedReads: Sendable {
    let lists: PagedLists

    func home(for me: Accounts.Identity, page: PageRequest) throws -> Page<VideoJSON> {
        try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                try FeedStore().home(readerSeq: me.userSeq, viewer: Viewer(me), after: try Positions.seq(from), direction: direction, limit: limit,
                                     selecting: Presenter.followedVideoSelection(for: me), on: connection)
            },
            position: { Positions.seq($0.1.createdAt, $0.1.seq) },
            horizon: lists.byTime({ $0.1.createdAt }, tiebreak: Positions.seqTiebreak),
            present: { rows, _ in rows.map(\.0) })
    }

    func following(for me: Accounts.Identity, page: PageRequest) throws -> Page<ActivityJSON> {
        try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                try FeedStore().following(readerSeq: me.userSeq, viewer: Viewer(me), after: try Positions.seq(from), direction: direction, limit: limit,
                                          selecting: Presenter.activitySelection(for: me), on: connection)
            },
            position: { Positions.seq($0.1.createdAt, $0.1.seq) },
            horizon: lists.byTime({ $0.1.createdAt }, tiebreak: Positions.seqTiebreak),
            present: { rows, _ in rows.map(\.0) })
    }

    func news(for me: Accounts.Identity, page: PageRequest) throws -> Page<ActivityJSON> {
        try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                // Every item is aimed at the caller: their user object is read once (`caller`).
                try FeedStore().news(readerID: me.userID, viewer: Viewer(me), after: try Positions.time(from), direction: direction, limit: limit,
                                     selecting: Presenter.activitySelection(for: me, caller: try Presenter.callerUser(me, on: connection)),
                                     on: connection)
            },
            position: { Positions.time($0.1.createdAt, $0.1.id) },
            horizon: lists.byTime({ $0.1.createdAt }, tiebreak: Positions.timeTiebreak),
            present: { rows, connection in try Presenter.withOwners(rows.map(\.0), callerID: me.userID, on: connection) })
    }

    func likes(for me: Accounts.Identity, page: PageRequest) throws -> Page<VideoJSON> {
        try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                try FeedStore().likes(readerID: me.userID, viewer: Viewer(me), after: try Positions.time(from), direction: direction, limit: limit,
                                      selecting: Presenter.videoSelection(for: me), on: connection)
            },
            position: { Positions.time($0.1.createdAt, $0.1.id) },
            horizon: lists.byTime({ $0.1.createdAt }, tiebreak: Positions.timeTiebreak),
            present: { rows, _ in rows.map(\.0) })
    }
}
