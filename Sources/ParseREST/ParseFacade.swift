import Auth
import Community
import HTTP
import JSON
import Storage
import Telemetry
import VideoRegistry

/// The Parse REST API (API.md "Parse-compatible REST") under `/parse/` and `/1/`: an adapter
/// over the same domain services the `/v1` routes call (Accounts, the domain's stores and
/// visibility), never a second implementation of their rules.
///
/// Every route of both prefixes runs the same pipeline (`ParseRequest`: body as JSON, the
/// `_method` tunnel, application id and keys), then the handler of the method it carries, and
/// answers every error through `ParseErrors`, middleware's included. Requests under a prefix
/// that no route matches are answered in Parse's format too (`RouterBuilder.fallback`).
public struct ParseFacade: Sendable {
    /// The account mails `/v1` sends, handed in by the application (which owns the mail queue
    /// and the mail limits), so a Parse sign-up or reset does exactly what `/v1`'s does.
    public struct AccountMail: Sendable {
        /// What `/v1` sign-up runs in the new account's transaction (the verification mail).
        public var onSignUp: @Sendable (_ email: String, _ request: Request) -> (Account, any DatabaseConnection) throws -> Void
        /// `/v1`'s `POST /v1/password-resets` path; the facade answers `{}` whatever it finds.
        public var requestPasswordReset: @Sendable (_ email: String, _ request: Request) throws -> Void

        public init(onSignUp: @escaping @Sendable (String, Request) -> (Account, any DatabaseConnection) throws -> Void,
                    requestPasswordReset: @escaping @Sendable (String, Request) throws -> Void) {
            self.onSignUp = onSignUp
            self.requestPasswordReset = requestPasswordReset
        }

        /// No mail: nothing queued, and a reset request still answers `{}`.
        public static let none = AccountMail(onSignUp: { _, _ in { _, _ in } }, requestPasswordReset: { _, _ in })
    }

    /// The application's rate limits that sign-up and login count against, as on `/v1`.
    public struct Limits: Sendable {
        public var signups: RouteLimit?
        public var logins: RouteLimit?
        /// Counts one write of the user against `/v1`'s per-user write limit (throws its 429):
        /// the limit middleware keys on `/v1`'s Bearer identity, which a Parse request has not.
        public var write: @Sendable (_ userID: String) throws -> Void

        public init(signups: RouteLimit? = nil, logins: RouteLimit? = nil, write: @escaping @Sendable (String) throws -> Void = { _ in }) {
            self.signups = signups
            self.logins = logins
            self.write = write
        }
    }

    /// Where Parse SDKs are pointed: parse-server's documented mount and Parse.com's own.
    public static let prefixes = ["/parse", "/1"]

    let keys: ParseKeys
    let sessions: ParseSessions
    let reads: ClassReads
    let mail: AccountMail
    let limits: Limits
    let writes: ClassWrites
    let installations: InstallationRoutes

    /// `videos`, `social` and `moderation` are the services `/v1`'s routes write through;
    /// `publicRead` is the application's `--public-read`, which opens reads to anonymous clients
    /// here as it does on `/v1`.
    package init(keys: ParseKeys, accounts: Accounts, database: any Database, videos: Videos, social: Social, moderation: Moderation,
                 installations: Installations, publicRead: Bool, mail: AccountMail = .none, limits: Limits = Limits()) {
        self.keys = keys
        self.sessions = ParseSessions(accounts: accounts, publicRead: publicRead)
        self.reads = ClassReads(database: database)
        self.mail = mail
        self.limits = limits
        self.writes = ClassWrites(sessions: sessions, reads: reads, videos: videos, social: social, moderation: moderation,
                                  profile: ProfileWrites(sessions: sessions, reads: reads, countWrite: limits.write), countWrite: limits.write)
        self.installations = InstallationRoutes(sessions: sessions, installations: installations, database: database, countWrite: limits.write)
    }

    /// Registers every endpoint under both prefixes, and the prefixes' fallbacks.
    public func register(on router: RouterBuilder<Accounts.Identity>) {
        var endpoints = SessionRoutes(sessions: sessions, reads: reads, mail: mail, limits: limits, profile: writes.profile).endpoints
            + ClassRoutes(sessions: sessions, reads: reads, writes: writes, installations: installations).endpoints
            + installations.endpoints
            + [PushRoutes.endpoint(sessions)]
        // A batch's sub-requests run through the same endpoints (a batch within a batch is not one).
        endpoints.append(BatchRoutes(endpoints: endpoints).endpoint)
        for prefix in Self.prefixes {
            for endpoint in endpoints {
                for (method, policy) in endpoint.policies {
                    router.on(method, prefix + endpoint.path, policy: policy, renderError: { error, logger in ParseErrors.render(error, logger: logger) }) {
                        request, context in
                        var parsed = try ParseRequest(request, keys: keys)
                        parsed.logger = context.logger
                        return try endpoint.respond(to: parsed, context.parameters)
                    }
                }
            }
            // What the server refuses before routing (a malformed URL, a body over the limit,
            // overload) is Parse's `{code, error}` under the prefixes too, with its status.
            router.rejection(prefix: prefix) { error in ParseErrors.rejection(error).response }
            router.fallback(prefix: prefix) { request in
                do {
                    let parsed = try ParseRequest(request, keys: keys)
                    throw ParseError(.operationForbidden, "\(parsed.method) \(request.path) is not an endpoint of this server.", status: 404)
                } catch {
                    return ParseErrors.render(error, logger: Logger(handler: NullLogHandler()))
                }
            }
        }
    }
}

/// A Parse handler: the request after the pipeline, and the route's path parameters.
typealias ParseHandler = @Sendable (ParseRequest, Parameters) throws -> Response

/// One path of the facade and the handler of each method it serves, whether the method comes
/// as itself or tunnelled in a POST's `_method`.
struct ParseEndpoint: Sendable {
    let path: String
    let handlers: [String: ParseHandler]
    /// The route policy of each HTTP method the path is registered for: the methods served,
    /// and POST, which may tunnel any of them. A POST may be a login or a sign-up, so it takes
    /// the policy of the path's POST handler when there is one (bcrypt's pool, its limit).
    let policies: [(String, RoutePolicy)]

    init(_ path: String, _ handlers: [String: (ParseHandler, RoutePolicy)]) {
        self.path = path
        self.handlers = handlers.mapValues(\.0)
        var policies = handlers.map { ($0.key, $0.value.1) }
        // A tunnelled POST runs the handler its `_method` names: without a POST handler of its
        // own, it takes the policy of the GET it most often tunnels (the iOS SDK's finds).
        if handlers["POST"] == nil {
            policies.append(("POST", (handlers["GET"] ?? handlers["PUT"] ?? handlers["DELETE"])?.1 ?? .public))
        }
        self.policies = policies.sorted { $0.0 < $1.0 }
    }

    func respond(to request: ParseRequest, _ parameters: Parameters) throws -> Response {
        guard let handler = handlers[request.method] else {
            throw ParseError(.operationForbidden, "\(request.method) \(path) is not supported by this server yet.")
        }
        return try handler(request, parameters)
    }
}
