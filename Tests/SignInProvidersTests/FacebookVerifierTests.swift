import Auth
import Foundation
import SignInProviders
import Telemetry
import TestSupport
import Testing

/// Facebook access tokens against a Graph API stand-in (debug_token, then /me).
@Suite(.serialized) struct FacebookVerifierTests {
    static let secret = "s3cret-of-the-app"
    static let good = "EAAGoodToken0123456789"

    let standIn: IdentityStandIn
    let logs = InMemoryLogHandler()

    init() throws {
        standIn = try IdentityStandIn()
        try graph()
    }

    func graph(mode: String = "ok", appSecret: String = secret, tokens: [String: [String: Any]] = [:]) throws {
        var all: [String: [String: Any]] = [
            Self.good: ["userId": "10154", "name": "Dani Sordo", "email": "dani@example.com"],
            "EAANoEmail": ["userId": "10155", "name": "Carlos Sainz"],
            "EAAExpired": ["userId": "10156", "valid": false],
            "EAAOtherApp": ["userId": "10157", "appId": "9999"],
            "EAAMismatch": ["userId": "10158", "meId": "20000"],
            "EAAPage": ["userId": "10159", "type": "PAGE"],
        ]
        for (token, settings) in tokens { all[token] = settings }
        try standIn.control(["graph": ["mode": mode, "appId": "1234", "appSecret": appSecret, "tokens": all, "delay": 6]])
    }

    func verifier(timeoutMillis: Int = 1_000, secret: String = secret) throws -> FacebookVerifier {
        try FacebookVerifier(FacebookVerifier.Configuration(appID: "1234", appSecret: secret, graphURL: standIn.baseURL + "/"),
                             client: try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: timeoutMillis, extraCAFile: standIn.caFile)),
                             logger: Logger(handler: logs, level: .debug))
    }

    func refusal(_ verifier: FacebookVerifier, _ token: String) -> IdentityVerificationError? {
        do {
            _ = try verifier.verify(token: token, nonce: nil)
            return nil
        } catch {
            return error
        }
    }

    @Test func aValidTokenNamesTheUserWithTheAppSecretProof() throws {
        let verifier = try verifier()
        #expect(try verifier.verify(token: Self.good, nonce: nil)
            == VerifiedIdentity(provider: .facebook, subject: "10154", email: "dani@example.com", emailVerified: false, name: "Dani Sordo"))
        #expect(try verifier.verify(token: "EAANoEmail", nonce: nil)
            == VerifiedIdentity(provider: .facebook, subject: "10155", email: nil, emailVerified: false, name: "Carlos Sainz"))
        let requests = standIn.requests()
        #expect(requests.map { $0["path"] as? String } == ["/debug_token", "/me", "/debug_token", "/me"])
        let debug = try #require(requests.first?["query"] as? [String: String])
        #expect(debug == ["input_token": Self.good, "access_token": "1234|\(Self.secret)"])
        let me = try #require(requests[1]["query"] as? [String: String])
        #expect(me["fields"] == "id,name,email")
        #expect(me["appsecret_proof"]?.count == 64, "checked by the stand-in")
    }

    @Test func invalidForeignAndMismatchedTokensAreRefused() throws {
        let verifier = try verifier()
        #expect(refusal(verifier, "EAAUnknown") == .invalidToken(reason: "facebook: token not valid"))
        #expect(refusal(verifier, "EAAExpired") == .invalidToken(reason: "facebook: token not valid"))
        #expect(refusal(verifier, "EAAOtherApp") == .invalidToken(reason: "facebook: token of another app"))
        #expect(refusal(verifier, "EAAMismatch") == .invalidToken(reason: "facebook: ids disagree"))
        #expect(refusal(verifier, "EAAPage") == .invalidToken(reason: "facebook: not a user token"))
        #expect(refusal(verifier, "") == .invalidToken(reason: "facebook: not an access token"))
        #expect(refusal(verifier, "EAA token&x=1") == .invalidToken(reason: "facebook: not an access token"))
        #expect(refusal(verifier, String(repeating: "E", count: 5_000)) == .invalidToken(reason: "facebook: not an access token"))
        // Characters that mean something in a query reach Graph encoded, as one parameter.
        #expect(refusal(verifier, "EAA&input_token=\(Self.good)") == .invalidToken(reason: "facebook: token not valid"))
        #expect(standIn.requests().last?["query"] as? [String: String]
            == ["input_token": "EAA&input_token=\(Self.good)", "access_token": "1234|\(Self.secret)"])
    }

    @Test func graphDownOrSlowIsUnavailableWithinTheBound() throws {
        try graph(mode: "down")
        let verifier = try verifier(timeoutMillis: 1_000)
        #expect(refusal(verifier, Self.good) == .unavailable)
        try graph(mode: "slow")
        let elapsed = seconds { #expect(refusal(verifier, Self.good) == .unavailable) }
        #expect(elapsed < 3, "\(elapsed) s for a 1 s bound")
        let nobody = try FacebookVerifier(FacebookVerifier.Configuration(appID: "1234", appSecret: Self.secret, graphURL: "http://127.0.0.1:1"),
                                          client: try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: 1_000)))
        #expect(refusal(nobody, Self.good) == .unavailable)
    }

    @Test func aWrongAppSecretIsTheOperatorsMistakeNotTheUsers() throws {
        let verifier = try verifier(secret: "not-the-secret")
        #expect(refusal(verifier, Self.good) == .unavailable)
        #expect(logs.records.contains { $0.message.contains("Facebook refused the app's credentials") && $0.message.contains("code 190") })
    }

    @Test func neitherTheTokenNorTheSecretIsEverLoggedOrDescribed() throws {
        let verifier = try verifier(timeoutMillis: 1_000, secret: "not-the-secret")
        _ = refusal(verifier, Self.good)
        try graph(mode: "down")
        _ = refusal(try self.verifier(), Self.good)
        try graph(mode: "slow")
        let slowVerifier = try self.verifier()
        let errors = [refusal(slowVerifier, Self.good), refusal(slowVerifier, "EAAMismatch")]
        try graph()
        let more = [refusal(try self.verifier(), "EAAMismatch"), refusal(try self.verifier(), "EAAOtherApp")]
        #expect(logs.records.count >= 3)
        let texts = logs.records.map { String(decoding: JSONLinesLogHandler.format($0), as: UTF8.self) }
            + (errors + more).map { "\(String(describing: $0))" }
            + [FacebookVerifier.Configuration(appID: "1234", appSecret: Self.secret).description]
        for text in texts {
            for secret in [Self.good, "EAAMismatch", "EAAOtherApp", Self.secret, "not-the-secret"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }

    @Test func halfGivenSettingsAreRefused() throws {
        let client = try ProviderHTTPClient()
        #expect(throws: ProviderConfigurationError.self) { try FacebookVerifier(.init(appID: "", appSecret: "x"), client: client) }
        #expect(throws: ProviderConfigurationError.self) { try FacebookVerifier(.init(appID: "1234", appSecret: ""), client: client) }
        #expect(throws: ProviderConfigurationError.self) {
            try FacebookVerifier(.init(appID: "1234", appSecret: "x", graphURL: "http://graph.facebook.com"), client: client)
        }
    }
}
