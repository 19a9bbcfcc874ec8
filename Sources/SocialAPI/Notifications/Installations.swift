import CloudHooks
import Crypto
import Storage

/// A device that receives pushes (Parse's `_Installation`).
struct Installation: Sendable, Equatable {
    let id: String
    let userID: String
    let platform: PushPlatform
    let deviceToken: String
    let locale: String?
    let createdAt: Int64
    let updatedAt: Int64

    static let columns: SQL = "i.id, i.user_id, i.platform, i.device_token, i.locale, i.created_at, i.updated_at"

    init(id: String, userID: String, platform: PushPlatform, deviceToken: String, locale: String?, createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.userID = userID
        self.platform = platform
        self.deviceToken = deviceToken
        self.locale = locale
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(reading reader: inout RowReader) throws {
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
struct Installations: Sendable {
    /// APNs tokens are 64 hex digits today (32 bytes), FCM registration tokens about 160
    /// characters of a URL-safe alphabet; both may grow, so the rule is the alphabet and a
    /// generous bound, not today's exact shapes.
    static let tokenLength = 16...4_096
    static let localeLength = 2...35

    let database: any Database
    let clock: any Clock

    /// Registers `deviceToken` for the caller. The same token again updates it and moves it to
    /// the caller (a phone that changed hands, or another account on it); answers the
    /// installation and whether it is new.
    func register(userID: String, platform: PushPlatform, deviceToken: String, locale: String?) throws -> (Installation, created: Bool) {
        let now = clock.nowMillis()
        let id = try SecureRandom.alphanumericID()
        return try database.write { connection in
            let existing = try connection.fetchValue("SELECT id FROM installations WHERE device_token = \(deviceToken)", as: String.self)
            let installation = try connection.fetchOne("""
                INSERT INTO installations AS i (id, user_id, platform, device_token, locale, created_at, updated_at)
                VALUES (\(id), \(userID), \(platform.rawValue), \(deviceToken), \(locale), \(now), \(now))
                ON CONFLICT (device_token) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
                    locale = COALESCE(excluded.locale, i.locale), updated_at = excluded.updated_at
                RETURNING id, user_id, platform, device_token, locale, created_at, updated_at
                """, reading: { try Installation(reading: &$0) })
            return (try installation.orThrow(column: "id", expected: "the installation just written"), existing == nil)
        }
    }

    /// Removes the caller's installation; false when `id` names none of theirs.
    func remove(id: String, userID: String) throws -> Bool {
        try database.write { connection in
            try connection.execute("DELETE FROM installations WHERE id = \(id) AND user_id = \(userID)") == 1
        }
    }

    /// A user's devices (for `pacenote push test`).
    func all(userID: String) throws -> [Installation] {
        try database.read { connection in
            try connection.fetchAll("SELECT \(Installation.columns) FROM installations i WHERE i.user_id = \(userID) ORDER BY i.created_at",
                                    reading: { try Installation(reading: &$0) })
        }
    }

    /// A device token the push service reports gone: its installation goes.
    static func forget(id: String, on connection: any DatabaseConnection) throws {
        try connection.execute("DELETE FROM installations WHERE id = \(id)")
    }
}
