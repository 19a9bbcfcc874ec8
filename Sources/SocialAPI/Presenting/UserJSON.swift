import Auth
import Community
import JSON

/// A User object of API.md. The field mapping lives here and nowhere else.
struct UserJSON: JSONEncodable {
    enum View {
        /// Another user, seen by an anonymous client (`--public-read`).
        case anonymous
        /// Another user, seen by a signed-in caller: carries `isFollowing`.
        case signedIn(isFollowing: Bool)
        /// The caller's own account: carries email, emailVerified, notificationSettings, locale,
        /// and its ways in (`identities`, `hasPassword`).
        case owner(SignInMethods)
    }

    /// The fields every caller sees. A user presented inside a video or an activity is written
    /// straight from its joined row instead (`Presenter.writeUser`), in the same order.
    struct Profile: Sendable, Equatable {
        let id: String
        let username: String
        let displayName: String
        /// The picture's key (`Account.picture`), written as its two URLs (`PictureLinks`).
        let picture: String?
        let role: Role
        let followersCount: Int
        let followingCount: Int
        let videosCount: Int
        let createdAt: Int64
    }

    let profile: Profile
    let view: View
    /// Another account's ways in, shown to admins only (the console's user view): which
    /// providers, and whether it has a password, never more.
    var waysIn: SignInMethods?
    /// The caller's own account, set for the `.owner` view only (its private fields).
    private let account: Account?

    init(account: Account, view: View) {
        profile = Profile(
            id: account.id, username: account.username, displayName: account.displayName, picture: account.picture,
            role: account.role, followersCount: account.followersCount, followingCount: account.followingCount,
            videosCount: account.videosCount, createdAt: account.createdAt)
        self.view = view
        self.account = if case .owner = view { account } else { nil }
    }

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", profile.id)
        writer.field("username", profile.username)
        writer.field("displayName", profile.displayName)
        PictureLinks.write(key: profile.picture, to: &writer)
        writer.field("role", profile.role.rawValue)
        writer.field("followersCount", profile.followersCount)
        writer.field("followingCount", profile.followingCount)
        writer.field("videosCount", profile.videosCount)
        writer.field("createdAt", timestampMillis: profile.createdAt)
        switch view {
        case .anonymous:
            break
        case .signedIn(let isFollowing):
            writer.field("isFollowing", isFollowing)
        case .owner(let methods):
            guard let account else { break }
            writer.field("email", account.email)
            writer.field("emailVerified", account.emailVerified)
            writer.field("locale", account.locale.rawValue)
            writer.key("notificationSettings")
            writer.beginObject()
            writer.field("newVideos", account.notificationSettings.newVideos)
            writer.field("myActivity", account.notificationSettings.myActivity)
            writer.field("followingActivity", account.notificationSettings.followingActivity)
            writer.endObject()
            Self.write(methods, to: &writer)
        }
        if let waysIn, account == nil { Self.write(waysIn, to: &writer) }
        writer.endObject()
    }

    /// `"identities": [...], "hasPassword": bool`.
    private static func write(_ methods: SignInMethods, to writer: inout JSONWriter) {
        writer.key("identities")
        writer.beginArray()
        for provider in methods.identities { writer.value(provider.rawValue) }
        writer.endArray()
        writer.field("hasPassword", methods.hasPassword)
    }
}

/// `{"user": User(me), "sessionToken": "…"}`, the answer to sign-up and login; a provider's
/// sign-in adds `"created"` (whether it made the account).
struct SignedInJSON: JSONEncodable {
    let signedIn: Accounts.SignedIn
    var created: Bool?

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("user", UserJSON(account: signedIn.account, view: .owner(signedIn.methods)))
        writer.field("sessionToken", signedIn.token.value)
        if let created { writer.field("created", created) }
        writer.endObject()
    }
}
