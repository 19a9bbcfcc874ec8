import Auth
import Community
import Delivery
import Foundation
import HTTP
import JSON
import Storage
import Telemetry
import VideoRegistry

/// API.md "Notifications": devices (installations) and the inbox.
struct NotificationRoutes {
    let notifications: NotificationReads
    let codec: CursorCodec
    let installations: Installations
    let inbox: Inbox

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.post("/v1/installations", policy: .session(pool: .blocking), registerInstallation)
        router.delete("/v1/installations/{id}", policy: .session(pool: .blocking), removeInstallation)
        router.get("/v1/notifications", policy: .session, notifications)
        router.post("/v1/notifications/read", policy: .session(pool: .blocking), markRead)
    }

    @Sendable func registerInstallation(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let body = try JSONBody.parse(request)
        guard let platform = PushPlatform(rawValue: try body.requireString("platform")) else {
            throw APIError.validation("platform", "platform is ios or android.")
        }
        let token = try body.requireString("deviceToken")
        guard Installations.tokenLength.contains(token.utf8.count), token.utf8.allSatisfy(Self.isTokenByte) else {
            throw APIError.validation("deviceToken", "deviceToken is the token the platform gave the app: 16 to 4096 letters, digits and -_.:")
        }
        // APNs tokens are hex: anything else is refused here rather than accepted and then
        // pruned at its first push (APNs answers BadDeviceToken).
        if platform == .ios, !(token.utf8.count.isMultiple(of: 2) && token.utf8.allSatisfy(Self.isHexByte)) {
            throw APIError.validation("deviceToken", "An iOS deviceToken is the hexadecimal token APNs gave the app.")
        }
        // APNs tokens are hex: anything else is refused here rather than accepted and then
        // pruned at its first push (APNs answers BadDeviceToken).
        if platform == .ios, !(token.utf8.count.isMultiple(of: 2) && token.utf8.allSatisfy(Self.isHexByte)) {
            throw APIError.validation("deviceToken", "An iOS deviceToken is the hexadecimal token APNs gave the app.")
        }
        let locale = try body.string("locale") ?? request.headers["accept-language"].flatMap(Self.firstLanguage)
        if let locale, !Self.isLocale(locale) {
            throw APIError.validation("locale", "locale is a language tag such as en, es or es-ES.")
        }
        let (installation, registration) = try installations.register(userID: me.userID, platform: platform, deviceToken: token, locale: locale)
        if case .moved(let fromUserID) = registration {
            // The operator's trace of a device changing hands: both accounts, never the token.
            context.logger.info("installation moved", ["fromUser": fromUserID, "toUser": me.userID, "installation": installation.id])
        }
        // A moved token is 201 too: for the caller it is a new installation (a new id, nothing
        // of the other account's).
        return .json(registration == .updated ? 200 : 201, InstallationJSON(installation: installation))
    }

    @Sendable func removeInstallation(_ request: Request, _ context: Context) throws -> Response {
        guard try installations.remove(id: try context.parameters.require("id"), userID: try context.caller().userID) else {
            throw APIError.notFound("No such installation.")
        }
        return .noContent()
    }

    @Sendable func notifications(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let page = try PageRequest.parse(request, codec: codec, scope: "notifications|\(me.userID)", refreshable: true)
        return .page(try notifications.inbox(for: me, page: page), page)
    }

    @Sendable func markRead(_ request: Request, _ context: Context) throws -> Response {
        let me = try context.caller()
        let upTo = try JSONBody.parse(request).requireString("upTo")
        guard try inbox.markRead(recipientID: me.userID, upTo: upTo) else {
            throw APIError.validation("upTo", "upTo is the id of one of your notifications.")
        }
        return .noContent()
    }

    /// Letters, digits and `-_.:`: the alphabets of APNs (hex) and FCM tokens.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"): return true
        default: return false
        }
    }

    private static func isHexByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return false
        }
    }

    /// A BCP 47-shaped tag: 2 or 3 letters, then `-` or `_` and up to 8 letters or digits per part, 35 at most.
    static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard Installations.localeLength.contains(text.utf8.count), let language = parts.first,
              (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// The first language of an `Accept-Language` header (`es-ES,es;q=0.9,en;q=0.8` -> `es-ES`).
    static func firstLanguage(_ header: String) -> String? {
        let first = header.split(separator: ",").first.map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces) } ?? ""
        return isLocale(first) ? first : nil
    }
}

struct InstallationJSON: JSONEncodable {
    let installation: Installation

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", installation.id)
        writer.field("platform", installation.platform.rawValue)
        writer.field("deviceToken", installation.deviceToken)
        writer.field("locale", installation.locale)
        writer.field("createdAt", timestampMillis: installation.createdAt)
        writer.field("updatedAt", timestampMillis: installation.updatedAt)
        writer.endObject()
    }
}

/// `{id, kind, activity, video, createdAt, readAt}`: the activity for likes, comments and
/// follows, the video for likes, comments and new videos (null where there is none); an
/// announcement's also carries `announcement: {id, title, body}` in the reader's language.
struct NotificationJSON: JSONEncodable {
    let row: NotificationRow
    let activity: ActivityJSON?
    let video: VideoJSON?
    var announcement: InboxAnnouncementJSON? = nil

    func encode(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("id", row.id)
        writer.field("kind", row.kind.rawValue)
        writer.key("activity")
        if let activity { writer.value(activity) } else { writer.null() }
        writer.key("video")
        if let video { writer.value(video) } else { writer.null() }
        if let announcement { writer.field("announcement", announcement) }
        writer.field("createdAt", timestampMillis: row.createdAt)
        writer.key("readAt")
        if let readAt = row.readAt { writer.timestamp(millisecondsSince1970: readAt) } else { writer.null() }
        writer.endObject()
    }

    /// A page's rows with their activities and videos, each read in one statement as the
    /// feeds present them.
    static func present(_ rows: [NotificationRow], for identity: Accounts.Identity, on connection: any DatabaseConnection) throws -> [NotificationJSON] {
        let activityIDs = SQL.joined(Set(rows.compactMap(\.activityID)).map { "\($0)" }, separator: ", ")
        let videoIDs = SQL.joined(Set(rows.compactMap(\.videoID)).map { "\($0)" }, separator: ", ")
        let activities = Presenter.activitySelection(for: identity)
        let videos = Presenter.videoSelection(for: identity)
        let activityByID = rows.contains { $0.activityID != nil } ? Dictionary(uniqueKeysWithValues: try connection.fetchAll(
            "SELECT \(activities.columns) FROM activities a \(activities.joins) WHERE a.id IN (\(activityIDs))", reading: activities.read
        ).map { ($0.activity.id, $0) }) : [:]
        let videoByID = rows.contains { $0.videoID != nil } ? Dictionary(uniqueKeysWithValues: try connection.fetchAll(
            "SELECT \(videos.columns) FROM videos v \(videos.joins) WHERE v.id IN (\(videoIDs))", reading: videos.read
        ).map { ($0.video.id, $0) }) : [:]
        let announcementIDs = Set(rows.compactMap(\.announcementID))
        let announcementByID = announcementIDs.isEmpty ? [:] : Dictionary(
            try AnnouncementStore().find(ids: Array(announcementIDs), on: connection).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // The reader's language is their account's (API.md User(me) `locale`).
        let locale = announcementIDs.isEmpty ? nil
            : try connection.fetchValue("SELECT locale FROM users WHERE id = \(identity.userID)", as: String.self)
        return rows.map { row in
            NotificationJSON(row: row, activity: row.activityID.flatMap { activityByID[$0] }, video: row.videoID.flatMap { videoByID[$0] },
                             announcement: row.announcementID.flatMap { announcementByID[$0] }.map { InboxAnnouncementJSON(announcement: $0, locale: locale) })
        }
    }
}
