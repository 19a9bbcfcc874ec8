import Auth
import Community
import JSON
import Storage
import VideoRegistry

/// Turns domain values into API objects for one caller.
///
/// Videos and activities are always presented from their rows, selected in the same
/// statement as the list itself (`videoSelection`, `activitySelection`: each row joined with
/// its users and carrying the caller's flags), and written as JSON while read (`VideoJSON`).
/// Users held as `Account` values are presented with `isFollowing` loaded in one batched
/// query, never one per item.
struct Presenter {
    let identity: Accounts.Identity?
    let connection: any DatabaseConnection
    private let accounts = AccountStore()
    private let activities = ActivityStore()

    init(_ identity: Accounts.Identity?, _ connection: any DatabaseConnection) {
        self.identity = identity
        self.connection = connection
    }

    var viewer: Viewer { Viewer(identity) }

    /// A user shown on its own (a profile, the answer of a follow or a moderator's action).
    /// A banned account is not found for a caller who may not see it (`Viewer.canSee`), so
    /// every route that answers one user object keeps the rule, whoever wrote the route.
    func user(_ account: Account) throws -> UserJSON {
        guard viewer.canSee(account) else { throw SocialError.notFound(.user) }
        return try users([account])[0]
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

    /// The video as the reads present it (one statement), if the caller may see it.
    func video(id: String) throws -> VideoJSON {
        guard let video = try VideoStore().find(id: id, viewer: viewer, selecting: Self.videoSelection(for: identity), on: connection) else {
            throw VideoRegistryError.notFound
        }
        return video
    }

    func usersByID(_ ids: Set<String>) throws -> [String: UserJSON] {
        let found = try accounts.find(ids: Array(ids), on: connection)
        return Dictionary(uniqueKeysWithValues: zip(found.map(\.id), try users(found)))
    }
}

// MARK: Selections: a page in one statement

// A page used to take four statements (the list, then owners, `isFollowing` and `likedByMe`
// for its ids) and as many dictionaries and sets; now each row comes with its users joined
// and the caller's flags as EXISTS subqueries. Those probe the partial unique indexes
// `activities_one_like` and `activities_one_follow`, which SQLite only uses because the
// activity type is a SQL literal (`ActivityKind.sql`), never a bound value.
extension Presenter {
    /// A video (`v`, from the caller's FROM) with its owner (joined as `o`), `likedByMe`
    /// and the owner's `isFollowing`. Hidden videos are the query's to filter out.
    static func videoSelection(for identity: Accounts.Identity?) -> Selection<VideoJSON> {
        let callerID = identity?.userID
        return Selection(columns: videoColumns(callerID), joins: videoJoins) { reader in
            try VideoJSON(reading: &reader, callerID: callerID)
        }
    }

    /// `videoSelection` for a list whose every video is the caller's own or by someone the
    /// caller follows: the home feed. Its timeline rows and hot-account arms exist only while
    /// the follow does (`Timelines.unfollowed` deletes them in the unfollow's own
    /// transaction), so the owner's `isFollowing` is known without probing the follows once
    /// per row (the probes were a sixth of a home request's CPU).
    static func followedVideoSelection(for identity: Accounts.Identity) -> Selection<VideoJSON> {
        let callerID = identity.userID
        let columns: SQL = "\(anonymousVideoColumns), CASE WHEN o.id = \(callerID) THEN NULL ELSE TRUE END, \(likedByMe(callerID))"
        return Selection(columns: columns, joins: videoJoins) { reader in
            try VideoJSON(reading: &reader, callerID: callerID)
        }
    }

    /// An activity (`a`, from the caller's FROM) with its users (`fu`, `tu`) and its video
    /// (`v`, left-joined, so a caller's WHERE may filter on it) as `videoSelection` presents
    /// it; a video the caller may not see is presented as null.
    ///
    /// With `caller` (the caller's own user object, `callerUser`), for lists whose every row
    /// is aimed at the caller (`a.to_user_id` is theirs: news): `toUser` is `caller`'s bytes,
    /// not joined at all; the actor is joined without the caller's row, with `caller`'s bytes
    /// written where the join found nothing; the video's owner is not joined either: it is
    /// the caller (likes and comments are aimed at the video's owner), or, rarely, someone
    /// `withOwners` reads after the rows. Reading and writing the caller again in each row was
    /// a fifth of a news page, joining `tu` and `o` to find the caller there a quarter of its
    /// statement.
    static func activitySelection(for identity: Accounts.Identity?, caller: CallerUser? = nil) -> Selection<ActivityJSON> {
        let callerID = identity?.userID
        let viewer = Viewer(identity)
        guard let caller, caller.id == callerID else {
            return Selection(
                columns: "\(ActivityJSON.columns), \(userColumns(.from, callerID)), \(userColumns(.to, callerID)), \(videoColumns(callerID))",
                joins: activityJoins
            ) { reader in
                try ActivityJSON(reading: &reader, callerID: callerID, caller: nil, viewer: viewer)
            }
        }
        let others = """
            LEFT JOIN users fu ON fu.id = a.from_user_id AND fu.id <> \(caller.id) LEFT JOIN videos v ON v.id = a.video_id
            """ as SQL
        return Selection(
            columns: """
                \(ActivityJSON.columns), \(userColumns(.from, caller.id, callerLeftOut: true)), \
                \(Video.columns), \(likedByMe(caller.id))
                """,
            joins: others
        ) { reader in
            try ActivityJSON(reading: &reader, callerID: caller.id, caller: caller, viewer: viewer)
        }
    }

    /// Writes in the video owners `activitySelection(for:caller:)` left out of `items` (owners
    /// other than the caller): one statement for the distinct ones, none when there are none
    /// (news aims at the owner, so they are the caller). Run in the read that selected `items`.
    static func withOwners(_ items: [ActivityJSON], callerID: String, on connection: any DatabaseConnection) throws -> [ActivityJSON] {
        var ids: [String] = []
        var seen = Set<String>()
        for item in items {
            if let id = item.owner?.id, seen.insert(id).inserted { ids.append(id) }
        }
        guard !ids.isEmpty else { return items }
        let list = SQL.joined(ids.map { "\($0)" }, separator: ", ")
        let users = try connection.fetchAll(
            "SELECT o.id, \(userColumns(.owner, callerID)) FROM users o WHERE o.id IN (\(list))"
        ) { reader -> (String, [UInt8]) in
            let id: String = try reader.next()
            var writer = JSONWriter(capacity: 512)
            try writeUser(&reader, callerID: callerID, to: &writer)
            return (id, writer.bytes)
        }
        let byID = Dictionary(users, uniquingKeysWith: { first, _ in first })
        return try items.map { item in
            guard let id = item.owner?.id else { return item }
            // The video's foreign key keeps its owner in the same read.
            guard let json = byID[id] else { throw StorageError.decoding(column: "owner_id", expected: "an existing user") }
            return item.withOwner(json)
        }
    }

    /// The caller's own user object, as the lists show it to them (no `isFollowing`).
    struct CallerUser: Sendable {
        let id: String
        let json: [UInt8]
    }

    /// Reads the caller's user object once, for `activitySelection(for:caller:)`; nil if the
    /// account is gone (then the list reads every user from its rows).
    static func callerUser(_ identity: Accounts.Identity, on connection: any DatabaseConnection) throws -> CallerUser? {
        try connection.fetchAll("SELECT \(JoinedUser.owner.profile) FROM users o WHERE o.id = \(identity.userID)") { reader in
            var writer = JSONWriter(capacity: 512)
            try writeUser(&reader, callerID: nil, to: &writer)
            return CallerUser(id: identity.userID, json: writer.bytes)
        }.first
    }

    // The parts that do not depend on the caller are built once: a statement keeps an
    // interpolated part whole, so reusing them costs nothing per request.
    private static let videoJoins: SQL = "JOIN users o ON o.id = v.owner_id"
    private static let activityJoins: SQL = """
        JOIN users fu ON fu.id = a.from_user_id JOIN users tu ON tu.id = a.to_user_id
        LEFT JOIN videos v ON v.id = a.video_id LEFT JOIN users o ON o.id = v.owner_id
        """
    private static let anonymousVideoColumns: SQL = "\(Video.columns), \(JoinedUser.owner.profile)"

    /// `Video.columns`, its owner `o` as `userColumns` selects it, then `likedByMe` (signed-in callers only).
    private static func videoColumns(_ callerID: String?) -> SQL {
        guard let callerID else { return anonymousVideoColumns }
        return "\(anonymousVideoColumns), \(isFollowing(.owner, callerID, callerLeftOut: false)), \(likedByMe(callerID))"
    }

    private static func likedByMe(_ callerID: String) -> SQL {
        "EXISTS (SELECT 1 FROM activities liked WHERE liked.type = \(ActivityKind.like.sql) AND liked.from_user_id = \(callerID) AND liked.video_id = v.id)"
    }

    /// A user joined under an alias of the selections, with the public fields `writeUser` writes.
    private struct JoinedUser {
        let alias: SQL
        let profile: SQL

        init(_ alias: String) {
            self.alias = SQL(unsafeSQL: alias)
            // The alias is the program's own (below), so the list is one trusted text.
            profile = SQL(unsafeSQL: """
                \(alias).id, \(alias).username, \(alias).display_name, \(alias).picture, \(alias).role, \
                \(alias).followers_count, \(alias).following_count, \(alias).videos_count, \(alias).created_at
                """)
        }

        static let owner = JoinedUser("o")
        static let from = JoinedUser("fu")
        static let to = JoinedUser("tu")
    }

    /// The public fields of a joined user, then `isFollowing` (signed-in callers only).
    private static func userColumns(_ user: JoinedUser, _ callerID: String?, callerLeftOut: Bool = false) -> SQL {
        guard let callerID else { return user.profile }
        return "\(user.profile), \(isFollowing(user, callerID, callerLeftOut: callerLeftOut))"
    }

    /// Whether the caller follows the joined user; NULL for the caller themselves (who is the
    /// other user of every row of news, or, `callerLeftOut`, a row joined to no user): their
    /// own object has no `isFollowing`, and SQL says so without an id compared per user in Swift.
    private static func isFollowing(_ user: JoinedUser, _ callerID: String, callerLeftOut: Bool) -> SQL {
        let isCaller: SQL = callerLeftOut ? "\(user.alias).id IS NULL" : "\(user.alias).id = \(callerID)"
        return """
            CASE WHEN \(isCaller) THEN NULL ELSE EXISTS (SELECT 1 FROM activities follows \
            WHERE follows.type = \(ActivityKind.follow.sql) AND follows.from_user_id = \(callerID) AND follows.to_user_id = \(user.alias).id) END
            """
    }

    /// Writes what `userColumns` selects as a User object of API.md, read in place: no
    /// `String` or `UserJSON` is made per user (four users per news row; making their strings
    /// and destroying them was most of a row's own CPU). The field order is `UserJSON`'s. The
    /// caller sees themselves as anyone does (no `isFollowing`).
    ///
    /// With `caller`, a user joined to nothing (all NULL) is the caller, left out of the join
    /// (`activitySelection(for:caller:)`): `caller`'s bytes are written in its place.
    static func writeUser(_ reader: inout RowReader, callerID: String?, caller: CallerUser? = nil, to writer: inout JSONWriter) throws {
        if let caller, reader.nextIsNull {
            reader.skip(userColumnCount + (callerID == nil ? 0 : 1))
            writer.encoded(caller.json)
            return
        }
        writer.beginObject()
        try writer.field("id", textFrom: &reader)
        try writer.field("username", textFrom: &reader)
        try writer.field("displayName", textFrom: &reader)
        try reader.nextText { PictureLinks.write(key: $0, to: &writer) }
        let role = try reader.nextText { bytes in bytes.flatMap { Role(utf8: $0) } }
        guard let role else { throw StorageError.decoding(column: "role", expected: "a role name") }
        writer.field("role", role.rawValue)
        writer.field("followersCount", try reader.next(as: Int64.self))
        writer.field("followingCount", try reader.next(as: Int64.self))
        writer.field("videosCount", try reader.next(as: Int64.self))
        writer.field("createdAt", timestampMillis: try reader.next())
        // NULL for the caller themselves (`isFollowing(_:_:callerLeftOut:)`): no field.
        if callerID != nil, let following = try reader.next(as: Bool?.self) {
            writer.field("isFollowing", following)
        }
        writer.endObject()
    }

    /// The columns of `JoinedUser.profile`.
    private static let userColumnCount = 9

    /// The public fields of the user joined as `fu` (the actor of a row) or `tu` (its target),
    /// in the order `writeUser(_:callerID: nil, to:)` reads them: for the export, whose other
    /// users are public objects without `isFollowing`.
    static let actorProfileColumns: SQL = JoinedUser.from.profile
    static let targetProfileColumns: SQL = JoinedUser.to.profile
}

private extension Role {
    /// The role named by stored text, without making a `String`.
    init?(utf8 bytes: UnsafeRawBufferPointer) {
        // The three names differ in length: one comparison decides.
        let role: Role
        switch bytes.count {
        case 4: role = .user
        case 5: role = .admin
        case 9: role = .moderator
        default: return nil
        }
        let matches = bytes.elementsEqual(role.rawValue.utf8)
        guard matches else { return nil }
        self = role
    }
}
