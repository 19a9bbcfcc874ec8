import Auth
import Storage
import VideoRegistry

/// Turns domain values into API objects for one caller, loading what they need in a few
/// batched queries per page (owners, `likedByMe`, `isFollowing`), never one per item.
struct Presenter {
    let identity: Accounts.Identity?
    let connection: any DatabaseConnection
    private let accounts = AccountStore()
    private let activities = ActivityStore()
    private let videoStore = VideoStore()

    init(_ identity: Accounts.Identity?, _ connection: any DatabaseConnection) {
        self.identity = identity
        self.connection = connection
    }

    var viewer: Viewer { Viewer(identity) }

    func user(_ account: Account) throws -> UserJSON {
        try users([account])[0]
    }

    /// Public user objects; for a signed-in caller, each other user carries `isFollowing`.
    func users(_ list: [Account]) throws -> [UserJSON] {
        guard let identity else { return list.map { UserJSON(account: $0, view: .anonymous) } }
        let followed = try activities.followed(by: identity.userID, among: list.map(\.id).filter { $0 != identity.userID }, on: connection)
        return list.map { account in
            account.id == identity.userID
                ? UserJSON(account: account, view: .anonymous)
                : UserJSON(account: account, view: .signedIn(isFollowing: followed.contains(account.id)))
        }
    }

    /// The users with these ids, in this order; ids that name nobody (deleted in between) are left out.
    func users(ids: [String]) throws -> [UserJSON] {
        let byID = try usersByID(Set(ids))
        return ids.compactMap { byID[$0] }
    }

    func video(_ video: Video) throws -> VideoJSON {
        try videos([video])[0]
    }

    func videos(_ list: [Video]) throws -> [VideoJSON] {
        let owners = try usersByID(Set(list.map(\.ownerID)))
        let liked = try identity.map { try activities.likedVideos(by: $0.userID, among: list.map(\.id), on: connection) }
        return try list.map { video in
            guard let owner = owners[video.ownerID] else { throw StorageError.decoding(column: "owner_id", expected: "an existing user") }
            return VideoJSON(video: video, owner: owner, likedByMe: liked.map { $0.contains(video.id) })
        }
    }

    /// Activity objects; a video the caller may not see is presented as null.
    func activities(_ list: [Activity]) throws -> [ActivityJSON] {
        let users = try usersByID(Set(list.flatMap { [$0.fromUserID, $0.toUserID] }))
        let videoIDs = Set(list.compactMap(\.videoID))
        let visible = try videoStore.find(ids: Array(videoIDs), on: connection).filter(viewer.canSee)
        let presented = Dictionary(uniqueKeysWithValues: try zip(visible.map(\.id), videos(visible)).map { ($0, $1) })
        return try list.map { activity in
            guard let from = users[activity.fromUserID], let to = users[activity.toUserID] else {
                throw StorageError.decoding(column: "from_user_id", expected: "an existing user")
            }
            return ActivityJSON(activity: activity, fromUser: from, toUser: to, video: activity.videoID.flatMap { presented[$0] })
        }
    }

    private func usersByID(_ ids: Set<String>) throws -> [String: UserJSON] {
        let found = try accounts.find(ids: Array(ids), on: connection)
        return Dictionary(uniqueKeysWithValues: zip(found.map(\.id), try users(found)))
    }
}
