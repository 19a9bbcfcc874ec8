import Auth
import JSON

/// A User object of API.md. The field mapping lives here and nowhere else.
struct UserJSON: JSONEncodable {
    enum View {
        /// Another user, seen by an anonymous client (`--public-read`).
        case anonymous
        /// Another user, seen by a signed-in caller: carries `isFollowing`.
        case signedIn(isFollowing: Bool)
        /// The caller's own account: carries email, emailVerified and notificationSettings.
        case owner
    }

    let account: Account
    let view: View

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", account.id)
        writer.field("username", account.username)
        writer.field("displayName", account.displayName)
        writer.field("avatarUrl", account.avatarURL)
        writer.field("role", account.role.rawValue)
        writer.field("followersCount", account.followersCount)
        writer.field("followingCount", account.followingCount)
        writer.field("videosCount", account.videosCount)
        writer.field("createdAt", timestampMillis: account.createdAt)
        switch view {
        case .anonymous:
            break
        case .signedIn(let isFollowing):
            writer.field("isFollowing", isFollowing)
        case .owner:
            writer.field("email", account.email)
            writer.field("emailVerified", account.emailVerified)
            writer.key("notificationSettings")
            writer.beginObject()
            writer.field("newVideos", account.notificationSettings.newVideos)
            writer.field("myActivity", account.notificationSettings.myActivity)
            writer.field("followingActivity", account.notificationSettings.followingActivity)
            writer.endObject()
        }
        writer.endObject()
    }
}

/// `{"user": User(me), "sessionToken": "…"}`, the answer to sign-up and login.
struct SignedInJSON: JSONEncodable {
    let signedIn: Accounts.SignedIn

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("user", UserJSON(account: signedIn.account, view: .owner))
        writer.field("sessionToken", signedIn.token.value)
        writer.endObject()
    }
}
