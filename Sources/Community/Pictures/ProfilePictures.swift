import Auth
import Crypto
import Imaging
import Storage
import Telemetry

/// Profile pictures (API.md "Profile pictures"): an upload made into its two renditions and
/// stored as the user's one picture, a user's or a moderator's removal, and the lookup that
/// serves a rendition by name.
///
/// The renditions live in the database (`profile_pictures`), so every server on one database
/// serves every picture and a backup holds them. A picture's key is random (22 characters
/// of [0-9A-Za-z], 131 bits) and new with every upload: its names cannot be guessed from
/// anything a client sees, and a name always means the same bytes.
package final class ProfilePictures: Sendable {
    private let database: any Database
    private let clock: any WallClock
    private let store = AccountStore()
    private let log = ModerationLogStore()
    /// The server's one memory budget for decoding (`serve --picture-memory-mb`).
    private let budget: DecodeBudget

    package init(database: any Database, clock: any WallClock, budget: DecodeBudget = Imaging.budget) {
        self.database = database
        self.clock = clock
        self.budget = budget
    }

    /// Makes the renditions of `bytes` (on the calling thread, once the budget has room:
    /// decoding is the costly part and happens outside any transaction) and stores them as the
    /// user's picture, replacing the one they had; answers the account. `declared` is the
    /// format the upload's `Content-Type` names, which must be the one its bytes are.
    package func upload(_ bytes: [UInt8], declared: ImageFormat, for userID: String) throws -> Account {
        let renditions = try Imaging.renditions(of: bytes, declared: declared, budget: budget)
        return try database.write { connection in
            try store(renditions, for: userID, on: connection)
        }
    }

    /// Stores `renditions` as the user's picture in the caller's transaction (the Parse import
    /// stores its pictures in its own); answers the account.
    package func store(_ renditions: Renditions, for userID: String, on connection: any DatabaseConnection) throws -> Account {
        let key = try SecureRandom.alphanumericID(length: 22)
        let now = clock.nowMillis()
        guard try connection.execute("UPDATE users SET picture = \(key), updated_at = \(now) WHERE id = \(userID)") == 1 else {
            throw SocialError.notFound(.user)
        }
        try connection.execute("DELETE FROM profile_pictures WHERE user_id = \(userID)")
        for (name, bytes) in [(PictureName.large(key), renditions.large), (PictureName.small(key), renditions.small)] {
            try connection.execute("""
                INSERT INTO profile_pictures (name, user_id, bytes, created_at) VALUES (\(name), \(userID), \(bytes), \(now))
                """)
        }
        guard let account = try store.find(id: userID, on: connection) else { throw SocialError.notFound(.user) }
        return account
    }

    /// Removes the caller's own picture, if any; answers the account.
    package func remove(userID: String) throws -> Account {
        try database.write { connection in
            guard let account = try store.find(id: userID, on: connection) else { throw SocialError.notFound(.user) }
            return try removed(account, on: connection)
        }
    }

    /// A moderator's (or an admin's) removal of anyone's picture, in the moderation log with
    /// its reason; answers the account. A user without a picture is answered as is, unlogged.
    package func remove(userKey: String, reason: String?, by identity: Accounts.Identity) throws -> Account {
        try Moderation.requireModerator(identity)
        let reason = try Moderation.checked(reason)
        return try database.write { connection in
            guard let account = try store.find(idOrUsername: userKey, on: connection) else { throw SocialError.notFound(.user) }
            guard account.picture != nil else { return account }
            let updated = try removed(account, on: connection)
            try log.record(.removePicture, by: identity.userID, on: .user, id: account.id, reason: reason, now: clock.nowMillis(), on: connection)
            return updated
        }
    }

    private func removed(_ account: Account, on connection: any DatabaseConnection) throws -> Account {
        guard account.picture != nil else { return account }
        try connection.execute("DELETE FROM profile_pictures WHERE user_id = \(account.id)")
        try connection.execute("UPDATE users SET picture = NULL, updated_at = \(clock.nowMillis()) WHERE id = \(account.id)")
        var updated = account
        updated.picture = nil
        return updated
    }

    /// The rendition named `name` (`<key>-400.jpg`, `<key>-100.jpg`) and whose it is; nil when
    /// no picture has that name (never had, replaced or removed since) or its owner is banned.
    package func rendition(named name: String) throws -> StoredRendition? {
        guard PictureName.isWellFormed(name) else { return nil }
        return try database.read { connection in
            try connection.fetchOne("""
                SELECT p.user_id, p.bytes FROM profile_pictures p JOIN users u ON u.id = p.user_id
                WHERE p.name = \(name) AND u.banned_at IS NULL
                """).map { row in StoredRendition(userID: try row.decode(at: 0), bytes: try row.decode(at: 1)) }
        }
    }

    /// Whether the rendition `name` is still served (what a cached copy is checked against).
    package func isServed(_ name: String) throws -> Bool {
        try database.read { connection in
            try connection.fetchOne("""
                SELECT 1 FROM profile_pictures p JOIN users u ON u.id = p.user_id WHERE p.name = \(name) AND u.banned_at IS NULL
                """) != nil
        }
    }
}

/// One rendition as stored, with its owner's id.
package struct StoredRendition: Sendable {
    package let userID: String
    package let bytes: [UInt8]
}

/// The names of a picture's renditions, made from its key (`Account.picture`).
package enum PictureName {
    package static func large(_ key: String) -> String { "\(key)-\(Renditions.largeSide).jpg" }
    package static func small(_ key: String) -> String { "\(key)-\(Renditions.smallSide).jpg" }

    /// A name this server could have made: 22 characters of [0-9A-Za-z], then `-400.jpg` or
    /// `-100.jpg`. Anything else is not looked up at all.
    package static func isWellFormed(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 30 else { return false }
        let suffix = String(decoding: bytes[22...], as: UTF8.self)
        guard suffix == "-400.jpg" || suffix == "-100.jpg" else { return false }
        return bytes[..<22].allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }
    }
}
