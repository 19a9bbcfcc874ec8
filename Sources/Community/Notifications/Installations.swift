import Crypto
import Storage
import Telemetry

/// Which push service reaches a device.
public enum PushPlatform: String, Sendable, CaseIterable { case ios, android }

/// A device that receives pushes (Parse's `_Installation`).
package struct Installation: Sendable, Equatable {
    package let id: String
    package let userID: String
    package let platform: PushPlatform
    package let deviceToken: String
    package let locale: String?
    package let createdAt: Int64
    package let updatedAt: Int64

    package static let columns: SQL = "i.id, i.user_id, i.platform, i.device_token, i.locale, i.created_at, i.updated_at"

    package init(id: String, userID: String, platform: PushPlatform, deviceToken: String, locale: String?, createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.userID = userID
        self.platform = platform
        self.deviceToken = deviceToken
        self.locale = locale
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    package init(reading reader: inout RowReader) throws {
        id = try reader.next()
        userID = try reader.next()
        platform = try PushPlatform(rawValue: reader.next()).orThrow(column: "platform", expected: "ios or android")
        deviceToken = try reader.next()
        locale = try reader.next()
        createdAt = try reader.next()
        updatedAt = try reader.next()
    }
}

/// Registering and removing devices (API.md "Notifications": installations).
package struct Installations: Sendable {
    /// APNs tokens are 64 hex digits today (32 bytes), FCM registration tokens about 160
    /// characters of a URL-safe alphabet; both may grow, so the rule is the alphabet and a
    /// generous bound, not today's exact shapes.
    package static let tokenLength = 16...4_096
    package static let localeLength = 2...35

    package let database: any Database
    package let clock: any WallClock

    package init(database: any Database, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// What `register` did with the token.
    package enum Registration: Equatable {
        /// The token was unknown: a new installation.
        case created
        /// The caller had registered it already: the same installation, updated.
        case updated
        /// Another account had registered it: that installation is gone, and the caller has a
        /// new one. `fromUserID` is the earlier account (for the log, never for the client).
        case moved(fromUserID: String)
    }

    /// Registers `deviceToken` for the caller (API.md "Notifications").
    ///
    /// The caller's own token again updates its installation (same id; a missing locale keeps
    /// the one known). A token another account registered moves to the caller and starts
    /// afresh: that installation is deleted and a new one made from this request alone, so
    /// nothing of the earlier account (id, creation time, locale) reaches the caller, and
    /// deliveries queued for it find no device. A known token with another platform than it
    /// has is a conflict, whoever asks: switching it would make the next push fail and drop
    /// the token, a way to silence someone else's phone.
    ///
    /// The read and the write share one serializable transaction, so two registrations of
    /// one token racing each other behave as if one ran after the other (PostgreSQL retries
    /// the loser, which then sees the winner's row).
    package func register(userID: String, platform: PushPlatform, deviceToken: String, locale: String?) throws -> (Installation, Registration) {
        let now = clock.nowMillis()
        let id = try SecureRandom.alphanumericID()
        return try database.write { connection in
            let existing = try connection.fetchOne(
                "SELECT \(Installation.columns) FROM installations i WHERE i.device_token = \(deviceToken)",
                reading: { try Installation(reading: &$0) })
            if let existing {
                guard existing.platform == platform else {
                    throw SocialError.conflict(.deviceTokenOfOtherPlatform)
                }
                if existing.userID == userID {
                    let updated = try connection.fetchOne("""
                        UPDATE installations SET locale = COALESCE(\(locale as String?), locale), updated_at = \(now)
                        WHERE id = \(existing.id)
                        RETURNING id, user_id, platform, device_token, locale, created_at, updated_at
                        """, reading: { try Installation(reading: &$0) })
                    return (try updated.orThrow(column: "id", expected: "the installation just updated"), .updated)
                }
                try connection.execute("DELETE FROM installations WHERE id = \(existing.id)")
            }
            let installation = try connection.fetchOne("""
                INSERT INTO installations (id, user_id, platform, device_token, locale, created_at, updated_at)
                VALUES (\(id), \(userID), \(platform.rawValue), \(deviceToken), \(locale as String?), \(now), \(now))
                RETURNING id, user_id, platform, device_token, locale, created_at, updated_at
                """, reading: { try Installation(reading: &$0) })
            let created = try installation.orThrow(column: "id", expected: "the installation just written")
            return (created, existing.map { .moved(fromUserID: $0.userID) } ?? .created)
        }
    }

    /// Removes the caller's installation; false when `id` names none of theirs.
    package func remove(id: String, userID: String) throws -> Bool {
        try database.write { connection in
            try connection.execute("DELETE FROM installations WHERE id = \(id) AND user_id = \(userID)") == 1
        }
    }

    /// A user's devices (for `pacenote push test`).
    package func all(userID: String) throws -> [Installation] {
        try database.read { connection in
            try connection.fetchAll("SELECT \(Installation.columns) FROM installations i WHERE i.user_id = \(userID) ORDER BY i.created_at",
                                    reading: { try Installation(reading: &$0) })
        }
    }

    /// A device token the push service reports gone: its installation goes.
    package static func forget(id: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM installations WHERE id = \(id)")
    }
}
