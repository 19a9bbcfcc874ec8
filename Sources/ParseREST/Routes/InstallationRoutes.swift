import Auth
import Community
import HTTP
import JSON
import Storage

/// `_Installation` (`/classes/_Installation` and `/installations`) over Pacenote's installations,
/// the devices `/v1`'s `POST /v1/installations` registers (`Installations.register`, the same
/// call): an installation belongs to the session's user, and is keyed by its device token, which
/// Pacenote needs to push at all. `channels` are not stored: an edit of them sets the user's
/// notificationSettings (API.md "Parse-compatible REST"), and an installation answers the
/// channels its user's settings stand for (`InstallationChannels`).
///
/// As parse-server: a `POST` is an upsert (a known token is the same object, 200), a client's
/// find is 119, and so is a client's delete (parse-server refuses both without the master key).
struct InstallationRoutes: Sendable {
    let sessions: ParseSessions
    let installations: Installations
    let database: any Database
    let countWrite: @Sendable (String) throws -> Void

    static let className = "_Installation"

    /// The fields the SDKs send that Pacenote keeps no column for and parse-server stores as
    /// they come: accepted and dropped, so a PFInstallation's save is never 105 for them.
    static let dropped: Set<String> = [
        "badge", "appVersion", "appName", "appIdentifier", "parseVersion", "timeZone", "pushType", "GCMSenderId", "ACL",
        "installationId", "createdAt", "updatedAt",
    ]
    static let writable: Set<String> = ["deviceType", "deviceToken", "channels", "localeIdentifier", "user"]

    var endpoints: [ParseEndpoint] {
        let write = RoutePolicy.public(pool: .blocking)
        return [
            ParseEndpoint("/installations", ["POST": (create, write), "GET": (find, .public)]),
            ParseEndpoint("/installations/{objectId}", ["GET": (get, .public), "PUT": (update, write), "DELETE": (delete, write)]),
        ]
    }

    // MARK: Handlers

    @Sendable func find(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        throw ParseError(.operationForbidden, "Clients aren't allowed to perform the find operation on the installation collection.")
    }

    @Sendable func delete(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        throw ParseError(.operationForbidden, "Clients aren't allowed to perform the delete operation on the installation collection.")
    }

    /// 201 `{objectId, createdAt}` for a new device; 200 `{objectId, updatedAt}` when the caller
    /// had registered this token already (parse-server's upsert answers an update).
    @Sendable func create(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let identity = try caller(request)
        let body = try InstallationBody(request.body, userID: identity.userID)
        guard let platform = body.platform else { throw ParseError(.missingInstallationField, "deviceType must be specified in this operation") }
        guard let token = body.deviceToken else {
            throw ParseError(.missingInstallationField, "deviceToken is required: this server keeps the installations it can push to.")
        }
        let (installation, registration) = try installations.register(userID: identity.userID, platform: platform, deviceToken: token, locale: body.locale)
        if case .moved(let fromUserID) = registration {
            request.logger.info("installation moved", ["fromUser": fromUserID, "toUser": identity.userID, "installation": installation.id])
        }
        try applyChannels(body.channels, for: identity)
        var writer = JSONWriter(capacity: 96)
        writer.beginObject()
        writer.field("objectId", installation.id)
        if registration == .updated {
            writer.field("updatedAt", timestampMillis: installation.updatedAt)
            writer.endObject()
            return .json(200, writer: writer)
        }
        writer.field("createdAt", timestampMillis: installation.createdAt)
        writer.endObject()
        var response = Response.json(201, writer: writer)
        let mount = request.http.path.hasPrefix("/1/") ? "/1" : "/parse"
        let path = request.http.path.contains("/installations") ? "installations" : "classes/_Installation"
        response.headers.append(("Location", "\(mount)/\(path)/\(installation.id)"))
        return response
    }

    /// The caller's own installation, else 101 (another's is not theirs to see).
    @Sendable func get(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let identity = try caller(request, writing: false)
        let query = try ParseQuery.parseOrThrow(request.parameters, for: .get)
        guard query.include.isEmpty else { throw ParseErrors.map(ParseQueryError.cannotInclude(query.include[0])) }
        let installation = try own(try parameters.require("objectId"), identity)
        guard let account = try sessions.accounts.account(id: identity.userID) else { throw ParseError.invalidSession }
        let channels = try InstallationChannels.current(account.notificationSettings, userID: identity.userID, on: database)
        var writer = JSONWriter(capacity: 512)
        InstallationChannels.write(installation, channels: channels, keys: query.keys.map(Set.init), to: &writer)
        return .json(200, writer: writer)
    }

    /// 200 `{updatedAt}`. deviceType and deviceToken are the installation's identity (136 when
    /// changed, as parse-server); locale and channels change.
    @Sendable func update(_ request: ParseRequest, _ parameters: Parameters) throws -> Response {
        let identity = try caller(request)
        let existing = try own(try parameters.require("objectId"), identity)
        let body = try InstallationBody(request.body, userID: identity.userID)
        if let platform = body.platform, platform != existing.platform {
            throw ParseError(.immutableInstallationField, "deviceType may not be changed in this operation")
        }
        if let token = body.deviceToken, token != existing.deviceToken {
            throw ParseError(.immutableInstallationField, "deviceToken may not be changed in this operation")
        }
        var updatedAt = existing.updatedAt
        if body.locale != nil {
            updatedAt = try installations.register(userID: identity.userID, platform: existing.platform, deviceToken: existing.deviceToken,
                                                   locale: body.locale).0.updatedAt
        }
        try applyChannels(body.channels, for: identity)
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        writer.field("updatedAt", timestampMillis: body.channels == nil ? updatedAt : max(updatedAt, installations.clock.nowMillis()))
        writer.endObject()
        return .json(200, writer: writer)
    }

    // MARK: Helpers

    /// Installations are a signed-in user's on this server (parse-server allows anonymous ones):
    /// 206, parse-server's "session missing", without a session.
    private func caller(_ request: ParseRequest, writing: Bool = true) throws -> Accounts.Identity {
        guard let identity = try sessions.caller(request) else {
            throw ParseError(.sessionMissing, "An installation belongs to a signed-in user on this server; send X-Parse-Session-Token.")
        }
        if writing { try countWrite(identity.userID) }
        return identity
    }

    private func own(_ id: String, _ identity: Accounts.Identity) throws -> Installation {
        guard let installation = try installations.all(userID: identity.userID).first(where: { $0.id == id }) else { throw ParseError.objectNotFound }
        return installation
    }

    private func applyChannels(_ edit: ChannelEdit?, for identity: Accounts.Identity) throws {
        guard let edit else { return }
        guard let account = try sessions.accounts.account(id: identity.userID) else { throw ParseError.invalidSession }
        let followed = edit.touchesFollowing ? try InstallationChannels.followed(by: identity.userID, on: database) : []
        let settings = edit.applied(to: account.notificationSettings, userID: identity.userID, followed: followed)
        guard settings != account.notificationSettings else { return }
        var changes = AccountStore.ProfileChanges()
        changes.newVideos = settings.newVideos
        changes.myActivity = settings.myActivity
        changes.followingActivity = settings.followingActivity
        _ = try sessions.accounts.updateProfile(identity, changes)
    }
}

extension ParseQuery {
    /// `parse`, with its error as the Parse answer.
    static func parseOrThrow(_ parameters: [String: JSONValue], for purpose: Purpose) throws -> ParseQuery {
        do { return try parse(parameters, for: purpose) } catch { throw ParseErrors.map(error) }
    }
}
