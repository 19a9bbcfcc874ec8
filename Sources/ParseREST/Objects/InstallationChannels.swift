import Auth
import Community
import JSON
import Storage

/// A `channels` edit: set wholesale (an array), or `AddUnique`/`Add`/`Remove` of names, or
/// `Delete`. Channel names are parse-server's (`^[A-Za-z][A-Za-z0-9_-]*$`, else 112).
///
/// It becomes notificationSettings (API.md): `NewVideos` is `newVideos`, `IN_<own id>` is
/// `myActivity`, any `OUT_<id>` is `followingActivity`. Other names (another user's `IN_`,
/// an app's own channels) stand for nothing Pacenote sends and are not kept.
struct ChannelEdit: Equatable {
    enum Kind: Equatable { case set, add, remove }
    let kind: Kind
    let names: [String]

    static let newVideos = "NewVideos"

    init(_ value: JSONValue) throws {
        switch value {
        case .array(let items):
            kind = .set
            names = try Self.names(items)
        case .null:
            kind = .set
            names = []
        case .object:
            switch value["__op"]?.stringValue {
            case "AddUnique"?, "Add"?: kind = .add
            case "Remove"?: kind = .remove
            case "Delete"?:
                kind = .set
                names = []
                return
            default: throw ParseError(.incorrectType, "schema mismatch for _Installation.channels; expected Array or AddUnique, Add, Remove or Delete")
            }
            guard case .array(let items)? = value["objects"] else {
                throw ParseError(.invalidJSON, "objects to add or remove must be an array")
            }
            names = try Self.names(items)
        default:
            throw ParseError(.incorrectType, "schema mismatch for _Installation.channels; expected Array")
        }
    }

    private static func names(_ items: [JSONValue]) throws -> [String] {
        guard items.count <= 1_000 else { throw ParseError(.validationError, "channels holds at most 1000 names on this server.") }
        return try items.map { item in
            guard let name = item.stringValue else { throw ParseError(.invalidChannelName, "Channel names must be strings.") }
            let bytes = Array(name.utf8)
            let isLetter: (UInt8) -> Bool = { (65...90).contains($0) || (97...122).contains($0) }
            let valid = bytes.isEmpty || (isLetter(bytes[0]) && bytes.allSatisfy { isLetter($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 })
            guard valid else { throw ParseError(.invalidChannelName, "Channel names must start with a letter and hold letters, digits, _ and -.") }
            return name
        }
    }

    /// A `Remove` of `OUT_` channels needs the followed accounts to know whether any remain.
    var touchesFollowing: Bool { kind == .remove && names.contains { $0.hasPrefix("OUT_") } }

    /// The settings after the edit; `followed` are the ids the user follows (for a `Remove`).
    func applied(to settings: NotificationSettings, userID: String, followed: [String]) -> NotificationSettings {
        let own = "IN_" + userID
        let outs = names.filter { $0.hasPrefix("OUT_") }
        var result = settings
        switch kind {
        case .set:
            result.newVideos = names.contains(Self.newVideos)
            result.myActivity = names.contains(own)
            result.followingActivity = !outs.isEmpty
        case .add:
            if names.contains(Self.newVideos) { result.newVideos = true }
            if names.contains(own) { result.myActivity = true }
            if !outs.isEmpty { result.followingActivity = true }
        case .remove:
            if names.contains(Self.newVideos) { result.newVideos = false }
            if names.contains(own) { result.myActivity = false }
            // Removing one followed account's channel (an unfollow) keeps the setting while
            // the channels of others followed remain.
            if !outs.isEmpty {
                let remaining = Set(followed.map { "OUT_" + $0 }).subtracting(outs)
                result.followingActivity = settings.followingActivity && !remaining.isEmpty
            }
        }
        return result
    }
}

/// The channels an installation answers: those its user's settings stand for.
enum InstallationChannels {
    /// The accounts a user follows, oldest follow first (activities_from serves it), at most
    /// 1,000: the `OUT_` channels of a device.
    static func followed(by userID: String, on database: any Database) throws -> [String] {
        try database.read { connection in
            try connection.fetchAll("""
                SELECT a.to_user_id FROM activities a WHERE a.from_user_id = \(userID) AND a.type = 4 \
                ORDER BY a.created_at, a.id LIMIT 1000
                """) { reader in try reader.next() as String }
        }
    }

    static func current(_ settings: NotificationSettings, userID: String, on database: any Database) throws -> [String] {
        var channels: [String] = []
        if settings.newVideos { channels.append(ChannelEdit.newVideos) }
        if settings.myActivity { channels.append("IN_" + userID) }
        if settings.followingActivity { channels += try followed(by: userID, on: database).map { "OUT_" + $0 } }
        return channels
    }

    /// The installation as a Parse object; `keys` limits the fields besides the built-in ones.
    static func write(_ installation: Installation, channels: [String], keys: Set<String>?, to writer: inout JSONWriter) {
        let wanted: (String) -> Bool = { keys?.contains($0) ?? true }
        writer.beginObject()
        writer.field("objectId", installation.id)
        writer.field("createdAt", timestampMillis: installation.createdAt)
        writer.field("updatedAt", timestampMillis: installation.updatedAt)
        if wanted("deviceType") { writer.field("deviceType", installation.platform.rawValue) }
        if wanted("deviceToken") { writer.field("deviceToken", installation.deviceToken) }
        if wanted("channels") {
            writer.key("channels")
            writer.writeArray(channels) { writer, name in writer.value(name) }
        }
        if wanted("localeIdentifier"), let locale = installation.locale { writer.field("localeIdentifier", locale) }
        if wanted("user") {
            writer.key("user")
            writer.beginObject()
            writer.field("__type", "Pointer")
            writer.field("className", "_User")
            writer.field("objectId", installation.userID)
            writer.endObject()
        }
        writer.endObject()
    }
}
