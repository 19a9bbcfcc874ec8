import Auth
import Community
import Storage
import VideoRegistry

/// Users as the API shows them to the caller, and a profile's follow lists.
struct UserReads: Sendable {
    let lists: PagedLists

    private var database: any Database { lists.database }

    /// The account `key` names (an id or a username, `AccountStore.find(idOrUsername:)`).
    func account(idOrUsername key: String) throws -> Account? {
        try database.read { connection in try AccountStore().find(idOrUsername: key, on: connection) }
    }

    /// An account as the caller sees it (`Presenter.user`).
    func user(_ account: Account, for identity: Accounts.Identity?) throws -> UserJSON {
        try database.read { connection in try Presenter(identity, connection).user(account) }
    }

    /// Followers or followed users, by when the follow happened, newest first.
    func follows(_ direction: FollowDirection, of userID: String, for identity: Accounts.Identity?, page: PageRequest) throws -> Page<UserJSON> {
        let otherID: (Activity) -> String = { direction == .followers ? $0.fromUserID : $0.toUserID }
        return try lists.refreshablePage(page,
            fetch: { from, seek, limit, connection in
                try ActivityStore().follows(direction, userID: userID, after: try Positions.time(from), seek: seek, limit: limit, on: connection)
            },
            position: { Positions.time($0.createdAt, $0.id) },
            horizon: lists.byTime({ $0.createdAt }, tiebreak: Positions.timeTiebreak),
            present: { follows, connection in try Presenter(identity, connection).users(ids: follows.map(otherID)) })
    }
}
