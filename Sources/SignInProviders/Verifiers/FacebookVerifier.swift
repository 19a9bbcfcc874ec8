import Auth
import Crypto
import JSON
import Telemetry

/// Facebook Login: the app's user access token checked with the Graph API.
///
/// 1. `GET {graph}/debug_token?input_token=TOKEN&access_token=APPID|APPSECRET` must answer 200
///    with `data.is_valid == true`, `data.app_id` this app's id (a token Facebook issued to
///    another app is refused: that app's user did not sign in to us), `data.type` `USER` when
///    given, and `data.user_id`.
/// 2. `GET {graph}/me?fields=id,name,email&access_token=TOKEN&appsecret_proof=HMAC` (the proof,
///    HMAC-SHA256 of the token under the app secret, is what "Require App Secret" in the app's
///    settings demands) gives the name and email; its `id` must be that `user_id`.
///
/// Both calls together wait at most the client's timeout. Facebook's answers: a network
/// failure, a timeout, a 5xx or 429 is `.unavailable`; a 4xx from `debug_token` too (Graph
/// answers a bad input token with 200 and `is_valid: false`, so a 4xx there means Facebook
/// refused the app's own id or secret: an operator's mistake, logged as such, not the user's);
/// a 4xx from `/me` is `.invalidToken` (the token stopped working between the two calls).
/// Facebook does not say whether the email was confirmed, so `emailVerified` is false. The
/// `nonce` is not used (an access token carries none). The token and the secret are in the
/// URLs only: never in a log line, an error or a description.
public final class FacebookVerifier: IdentityVerifier {
    public struct Configuration: Sendable, CustomStringConvertible {
        /// `--facebook-app-id`.
        public var appID: String
        /// `--facebook-app-secret`.
        public var appSecret: String
        /// `--facebook-graph-url`. Unversioned by default: Graph then answers with the app's
        /// own API version, which Facebook upgrades, rather than one this build would pin until
        /// it expires.
        public var graphURL: String

        public static let defaultGraphURL = "https://graph.facebook.com"

        public init(appID: String, appSecret: String, graphURL: String = defaultGraphURL) {
            self.appID = appID
            self.appSecret = appSecret
            self.graphURL = graphURL
        }

        /// Without the secret.
        public var description: String { "FacebookVerifier.Configuration(appID: \(appID), graphURL: \(graphURL), appSecret: redacted)" }
    }

    /// Longer tokens are refused unsent (Facebook's are a few hundred characters).
    public static let maxTokenBytes = 4_096

    public let provider = IdentityProvider.facebook
    private let appID: String
    private let appToken: String
    private let proofKey: HMACKey
    private let graphURL: String
    private let client: ProviderHTTPClient
    private let log: RateLimitedLog?
    private let results: [String: Counter]

    /// - Throws: `ProviderConfigurationError`: an empty app id or secret, or a bad Graph URL.
    public init(_ configuration: Configuration, client: ProviderHTTPClient, logger: Logger? = nil, metrics: MetricsRegistry? = nil) throws(ProviderConfigurationError) {
        guard !configuration.appID.isEmpty, configuration.appID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw .incomplete(provider: "facebook", missing: "--facebook-app-id (the app's numeric id)")
        }
        guard !configuration.appSecret.isEmpty else { throw .incomplete(provider: "facebook", missing: "--facebook-app-secret") }
        graphURL = try ProviderURL.base(configuration.graphURL, setting: "--facebook-graph-url")
        appID = configuration.appID
        appToken = configuration.appID + "|" + configuration.appSecret
        proofKey = HMACKey(bytes: Array(configuration.appSecret.utf8))
        self.client = client
        log = logger.map { RateLimitedLog(logger: $0.with("provider", "facebook"), intervalMillis: 10_000) }
        var results: [String: Counter] = [:]
        if let metrics {
            for result in ["ok", "unavailable"] {
                results[result] = metrics.counter("pacenote_signin_graph_calls_total", help: "Facebook Graph API calls, by result.",
                                                  labels: [("result", result)])
            }
        }
        self.results = results
    }

    /// Who the token belongs to (`subject` is the app-scoped Facebook user id).
    /// - Throws: `.invalidToken` or `.unavailable` (see the type's documentation).
    public func verify(token: String, nonce: String?) throws(IdentityVerificationError) -> VerifiedIdentity {
        guard !token.isEmpty, token.utf8.count <= Self.maxTokenBytes,
              token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw .invalidToken(reason: "facebook: not an access token")
        }
        let started = monotonicMillis()
        func remaining() -> Int { client.timeoutMillis - Int(monotonicMillis() - started) }

        let debug = try call("\(graphURL)/debug_token?input_token=\(ProviderURL.queryEncoded(token))&access_token=\(ProviderURL.queryEncoded(appToken))",
                             step: "debug_token", budget: remaining())
        guard debug.status == 200 else {
            log?.warning(kind: "facebook_app_refused",
                         "Facebook refused the app's credentials at debug_token (check --facebook-app-id and --facebook-app-secret): \(Self.graphError(debug))")
            throw .unavailable
        }
        guard let data = debug.json?["data"], data.objectValue != nil else { throw .unavailable }
        guard data["is_valid"]?.boolValue == true else { throw .invalidToken(reason: "facebook: token not valid") }
        guard Self.identifier(data["app_id"]) == appID else { throw .invalidToken(reason: "facebook: token of another app") }
        if let type = data["type"]?.stringValue, type != "USER" { throw .invalidToken(reason: "facebook: not a user token") }
        guard let userID = Self.identifier(data["user_id"]), !userID.isEmpty, userID.utf8.count <= 255 else {
            throw .invalidToken(reason: "facebook: no user id")
        }

        let proof = Hex.encode(proofKey.authenticationCode(for: Array(token.utf8)))
        let me = try call("\(graphURL)/me?fields=id,name,email&access_token=\(ProviderURL.queryEncoded(token))&appsecret_proof=\(proof)",
                          step: "me", budget: remaining())
        guard me.status == 200 else { throw .invalidToken(reason: "facebook: /me refused the token (\(me.status))") }
        guard let profile = me.json, profile.objectValue != nil else { throw .unavailable }
        guard Self.identifier(profile["id"]) == userID else { throw .invalidToken(reason: "facebook: ids disagree") }
        let name = profile["name"]?.stringValue.flatMap { $0.isEmpty || $0.utf8.count > 1_000 ? nil : $0 }
        let email = profile["email"]?.stringValue.flatMap { $0.contains("@") && $0.utf8.count <= 320 ? $0 : nil }
        return VerifiedIdentity(provider: .facebook, subject: userID, email: email, emailVerified: false, name: name)
    }

    private struct Answer {
        var status: Int
        var json: JSONValue?
    }

    /// One Graph GET within `budget` ms: an answer with a status below 500 (and not 429), or
    /// `.unavailable`. `step` names the call in the log; the URL never appears.
    private func call(_ url: String, step: String, budget: Int) throws(IdentityVerificationError) -> Answer {
        guard budget > 0 else {
            log?.warning(kind: "facebook_graph", "Facebook's Graph API: no time left for \(step)")
            results["unavailable"]?.increment()
            throw .unavailable
        }
        switch client.get(url, budgetMillis: budget) {
        case .failure(let error):
            log?.warning(kind: "facebook_graph", "Facebook's Graph API did not answer \(step): \(error.description)")
            results["unavailable"]?.increment()
            throw .unavailable
        case .success(let response) where response.status >= 500 || response.status == 429:
            log?.warning(kind: "facebook_graph", "Facebook's Graph API answered \(step) with \(response.status)")
            results["unavailable"]?.increment()
            throw .unavailable
        case .success(let response):
            results["ok"]?.increment()
            return Answer(status: response.status, json: try? JSONValue.parse(response.body, maxDepth: 16))
        }
    }

    /// A Graph id, which Graph writes as a string (and some old answers as a number).
    private static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        default: nil
        }
    }

    /// What a Graph error answer says, for the log: its status, `code`, `error_subcode` and
    /// `type`, never its `message` (which may quote what was sent).
    private static func graphError(_ answer: Answer) -> String {
        let error = answer.json?["error"]
        let code = error?["code"]?.intValue.map(String.init) ?? "-"
        let subcode = error?["error_subcode"]?.intValue.map(String.init) ?? "-"
        let type = error?["type"]?.stringValue.map { String($0.prefix(64).filter { $0.isLetter || $0.isNumber }) } ?? "-"
        return "status \(answer.status), code \(code), subcode \(subcode), type \(type)"
    }
}
