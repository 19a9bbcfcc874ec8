import Auth
import Community
import Foundation
import HTTP
import Imaging
import Telemetry

/// API.md "Profile pictures": the caller's upload and removal, a moderator's removal, and the
/// renditions served to image loaders.
///
/// An upload is the one route with a large body (10 MiB) and runs on the media pool: decoding
/// a photo takes tens of milliseconds of CPU, which must not hold a serving thread or queue in
/// front of bcrypt. The renditions are served without a session (image loaders cannot add
/// headers; the names are unguessable), from `PictureCache` when held.
struct PictureRoutes {
    static let maxUploadBytes = Imaging.maxEncodedBytes
    static let cacheControl = "public, max-age=31536000, immutable"

    let pictures: ProfilePictures
    let accounts: Accounts
    let users: UserReads
    let cache: PictureCache
    let clock: any WallClock

    func register(on router: RouterBuilder<Accounts.Identity>) {
        router.put("/v1/users/me/avatar", policy: .session(limit: .writes, pool: .media, maxBodyBytes: Self.maxUploadBytes), upload)
        router.delete("/v1/users/me/avatar", policy: .session(pool: .blocking), removeMine)
        router.delete("/v1/moderation/users/{id}/avatar", policy: .session(pool: .blocking), removeAsModerator)
        router.get("/media/avatars/{name}", policy: .public, serve)
    }

    @Sendable func upload(_ request: Request, _ context: Context) throws -> Response {
        let caller = try context.caller()
        // The type named must be one this build reads; the bytes must then be of that type.
        guard let declared = request.headers["content-type"].flatMap(ImageFormat.init(mediaType:)),
              Imaging.formats.contains(declared) else {
            throw APIError(status: 400, code: "invalid_image",
                           message: "Send the picture itself as the body, typed \(Self.acceptedTypes.joined(separator: ", ")).")
        }
        _ = try pictures.upload(request.body, declared: declared, for: caller.userID)
        cache.evict(userID: caller.userID)
        return try AccountRoutes.me(caller, accounts)
    }

    @Sendable func removeMine(_ request: Request, _ context: Context) throws -> Response {
        let caller = try context.caller()
        _ = try pictures.remove(userID: caller.userID)
        cache.evict(userID: caller.userID)
        return try AccountRoutes.me(caller, accounts)
    }

    @Sendable func removeAsModerator(_ request: Request, _ context: Context) throws -> Response {
        let account = try pictures.remove(userKey: try context.parameters.require("id"), reason: try ModerationRoutes.reason(request),
                                          by: try context.caller())
        cache.evict(userID: account.id)
        return .json(200, try users.user(account, for: context.identity))
    }

    @Sendable func serve(_ request: Request, _ context: Context) throws -> Response {
        let name = try context.parameters.require("name")
        guard PictureName.isWellFormed(name) else { throw Self.notFound }
        let now = clock.nowMillis()
        let bytes: [UInt8]
        switch cache.lookup(name, now: now) {
        case .fresh(let held):
            bytes = held
        case .stale(let held):
            guard try pictures.isServed(name) else {
                cache.remove(name)
                throw Self.notFound
            }
            cache.confirm(name, now: now)
            bytes = held
        case .miss:
            guard let stored = try pictures.rendition(named: name) else { throw Self.notFound }
            cache.insert(name, bytes: stored.bytes, userID: stored.userID, now: now)
            bytes = stored.bytes
        }
        // The name is the picture's identity: one name, one set of bytes, for ever.
        let etag = "\"\(name.dropLast(4))\""
        var headers: [(String, String)] = [("ETag", etag), ("Cache-Control", Self.cacheControl), ("X-Content-Type-Options", "nosniff")]
        if let match = request.headers["if-none-match"], Self.matches(match, etag) {
            return Response(status: 304, headers: headers)
        }
        headers.append(("Content-Type", "image/jpeg"))
        return Response(status: 200, headers: headers, body: bytes)
    }

    private static let notFound = APIError.notFound("No such picture.")

    /// The media types an upload may have, for the refusal's message: the canonical one of
    /// each format this build decodes (`ImageFormat(mediaType:)` also takes the aliases).
    static let acceptedTypes: [String] = Imaging.formats.compactMap(\.mediaTypes.first)

    /// `If-None-Match`: a list of entity tags, or `*` (RFC 9110 13.1.2; weak tags compare weakly).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
