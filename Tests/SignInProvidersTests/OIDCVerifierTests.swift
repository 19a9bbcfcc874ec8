import Auth
import Crypto
import Foundation
import SignInProviders
import Synchronization
import Telemetry
import TestSupport
import Testing

/// Apple and Google ID tokens against a JWKS stand-in over TLS on loopback: the keys are really
/// fetched, cached, refreshed and bounded in time.
@Suite(.serialized) struct OIDCVerifierTests {
    let standIn: IdentityStandIn
    let mint: TokenMint
    let clock = ManualClock()
    let logs = InMemoryLogHandler()

    init() throws {
        standIn = try IdentityStandIn()
        mint = TokenMint(standIn: standIn)
    }

    func client(timeoutMillis: Int = 1_000) throws -> ProviderHTTPClient {
        try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: timeoutMillis, extraCAFile: standIn.caFile))
    }

    func apple(timeoutMillis: Int = 1_000, configure: (inout OIDCVerifier.Configuration) -> Void = { _ in }) throws -> OIDCVerifier {
        var configuration = OIDCVerifier.Configuration.apple(audiences: ["com.example.pacenote", "com.example.pacenote.web"], jwksURL: standIn.jwksURL)
        configure(&configuration)
        return try OIDCVerifier(configuration, client: try client(timeoutMillis: timeoutMillis), logger: Logger(handler: logs),
                                monotonicClock: clock.now)
    }

    func refusal(_ verifier: OIDCVerifier, _ token: String, nonce: String? = nil) -> IdentityVerificationError? {
        do {
            _ = try verifier.verify(token: token, nonce: nonce)
            return nil
        } catch {
            return error
        }
    }

    @Test func aGoodTokenSignsInAndTheKeysAreFetchedOnce() throws {
        let verifier = try apple()
        let identity = try verifier.verify(token: try mint.token(), nonce: nil)
        #expect(identity == VerifiedIdentity(provider: .apple, subject: "001234.abcdef", email: "kalle@privaterelay.appleid.com",
                                             emailVerified: true, name: nil))
        // A second app id of the list, an audience array, a boolean email_verified.
        let web = try verifier.verify(token: try mint.token(["aud": ["other", "com.example.pacenote.web"], "email_verified": true]), nonce: nil)
        #expect(web.emailVerified)
        #expect(try verifier.verify(token: try mint.token(["email_verified": "false"]), nonce: nil).emailVerified == false)
        #expect(standIn.count("/jwks") == 1, "cached for the answer's max-age")
    }

    @Test func hostileTokensAreRefused() throws {
        let verifier = try apple()
        let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: mint.claims())))
        #expect(refusal(verifier, try mint.token(["exp": mint.now - 120])) == .invalidToken(reason: "expired"))
        #expect(refusal(verifier, try mint.token(["aud": "com.someone.else"])) == .invalidToken(reason: "audience"))
        #expect(refusal(verifier, try mint.token(["iss": "https://accounts.google.com"])) == .invalidToken(reason: "issuer"))
        #expect(refusal(verifier, try mint.token(["iat": mint.now + 3_600])) == .invalidToken(reason: "issued in the future"))
        // Signed by a key the provider never published, under its published kid...
        #expect(refusal(verifier, try mint.sign(mint.claims(), signer: "rogue", kid: "k1")) == .invalidToken(reason: "signature"))
        // ...and under its own kid, which the set (fetched again for it) does not hold.
        clock.advance(seconds: 61)
        #expect(refusal(verifier, try mint.sign(mint.claims(), signer: "rogue")) == .invalidToken(reason: "kid not in the provider's keys"))
        // alg none, with no signature.
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"k1"}"#.utf8)) + "." + payload + "."
        #expect(refusal(verifier, none) == .invalidToken(reason: "alg is not RS256"))
        // HS256 with the provider's public key (its PEM, as anyone can fetch it) as the secret.
        let hsInput = Base64URL.encode(Array(#"{"alg":"HS256","kid":"k1","typ":"JWT"}"#.utf8)) + "." + payload
        let mac = HMACKey(bytes: Array(try standIn.publicKeyPEM("k1").utf8)).authenticationCode(for: Array(hsInput.utf8))
        #expect(refusal(verifier, hsInput + "." + Base64URL.encode(mac)) == .invalidToken(reason: "alg is not RS256"))
        #expect(refusal(verifier, try mint.sign(mint.claims(), header: ["alg": "RS256"])) == .invalidToken(reason: "no kid"))
        #expect(refusal(verifier, try mint.sign(mint.claims(), header: ["alg": "RS512", "kid": "k1"])) == .invalidToken(reason: "alg is not RS256"))
        #expect(refusal(verifier, "not.a.token") == .invalidToken(reason: "not a compact JWS"))
        #expect(refusal(verifier, String(repeating: "a", count: 9_000)) == .invalidToken(reason: "token too long"))
        // Only the first token and the rogue kid (after the interval) fetched the set: alg none,
        // HS256 and the rest never reached the provider.
        #expect(standIn.count("/jwks") == 2)
    }

    @Test func theNonceMustBeSentAsTheRawValueOfItsSHA256() throws {
        let verifier = try apple()
        let raw = "9b1deb4d-3b7d-4bad"
        #expect(refusal(verifier, try mint.token(["nonce": Hex.encode(SHA256.hash(raw))]), nonce: raw) == nil)
        #expect(refusal(verifier, try mint.token(["nonce": raw]), nonce: raw) == .invalidToken(reason: "nonce"), "the claim as sent proves nothing")
        #expect(refusal(verifier, try mint.token(["nonce": "another"]), nonce: raw) == .invalidToken(reason: "nonce"))
        #expect(refusal(verifier, try mint.token(), nonce: raw) == .invalidToken(reason: "nonce"), "a nonce sent, none in the token")
        #expect(try verifier.verify(token: try mint.token(["nonce": raw]), nonce: nil).nonce?.claim == raw, "no nonce sent: the claim goes on, to be used once")
    }

    @Test func aRotationIsPickedUpAndARetiredKeyRefusedAfterTheRefresh() throws {
        try standIn.control(["jwks": ["keys": ["k1"], "cacheControl": "public, max-age=600"]])
        let verifier = try apple()
        #expect(refusal(verifier, try mint.token(signer: "k1")) == nil)
        // The provider publishes k2 and signs with it.
        try standIn.control(["jwks": ["keys": ["k1", "k2"], "cacheControl": "public, max-age=600"]])
        clock.advance(seconds: 61)
        #expect(refusal(verifier, try mint.token(signer: "k2")) == nil, "an unknown kid fetched the set again")
        #expect(standIn.count("/jwks") == 2)
        // k1 retired: still in the cached set until its max-age passes, then refused.
        try standIn.control(["jwks": ["keys": ["k2"], "cacheControl": "public, max-age=600"]])
        #expect(refusal(verifier, try mint.token(signer: "k1")) == nil)
        clock.advance(seconds: 601)
        #expect(refusal(verifier, try mint.token(signer: "k1")) == .invalidToken(reason: "kid not in the provider's keys"))
        #expect(refusal(verifier, try mint.token(signer: "k2")) == nil)
        #expect(standIn.count("/jwks") == 3)
    }

    @Test func aFloodOfUnknownKidsFetchesAtMostOnceAnInterval() throws {
        let verifier = try apple()
        #expect(refusal(verifier, try mint.token()) == nil)
        func flood() throws {
            for index in 0..<50 {
                let token = try mint.sign(mint.claims(), signer: "k1", kid: "random-\(UUID().uuidString)-\(index)")
                #expect(refusal(verifier, token) == .invalidToken(reason: "kid not in the provider's keys"))
            }
        }
        try flood()
        #expect(standIn.count("/jwks") == 1, "within the interval of the first fetch: none")
        clock.advance(seconds: 61)
        try flood()
        #expect(standIn.count("/jwks") == 2, "one for the whole flood")
        clock.advance(seconds: 30)
        try flood()
        #expect(standIn.count("/jwks") == 2)
        clock.advance(seconds: 31)
        try flood()
        #expect(standIn.count("/jwks") == 3)
        // Known keys were never held up.
        #expect(refusal(verifier, try mint.token()) == nil)
    }

    @Test func aSlowKeySetIsUnavailableWithinTheBound() throws {
        try standIn.control(["jwks": ["mode": "slow", "delay": 6]])
        let verifier = try apple(timeoutMillis: 1_000)
        let elapsed = seconds { #expect(refusal(verifier, (try? mint.token()) ?? "") == .unavailable) }
        #expect(elapsed < 3, "1 s bound, measured loosely: \(elapsed) s")
        #expect(logs.records.contains { $0.message.contains("sign-in keys could not be fetched: timeout") })
    }

    @Test func manyCallersShareOneFetchAndNoneWaitsPastTheBound() throws {
        try standIn.control(["jwks": ["mode": "slow", "delay": 6]])
        let verifier = try apple(timeoutMillis: 1_000)
        let token = try mint.token()
        let outcomes = Mutex<[(IdentityVerificationError?, Double)]>([])
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                var refused: IdentityVerificationError?
                let elapsed = seconds { refused = refusal(verifier, token) }
                outcomes.withLock { $0.append((refused, elapsed)) }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let all = outcomes.withLock { $0 }
        #expect(all.count == 8)
        #expect(all.allSatisfy { $0.0 == .unavailable })
        #expect(all.allSatisfy { $0.1 < 3 }, "\(all.map(\.1))")
        #expect(standIn.count("/jwks") == 1, "one fetch in flight; the others waited for it")
    }

    @Test func aKeySetThatIsDownOrBrokenIsUnavailableAndRetriedAfterAPause() throws {
        for mode in ["down", "garbage", "huge"] {
            try standIn.control(["jwks": ["mode": mode]])
            let verifier = try apple()
            #expect(refusal(verifier, try mint.token()) == .unavailable, "\(mode)")
            #expect(refusal(verifier, try mint.token()) == .unavailable, "\(mode): no second fetch at once")
        }
        #expect(standIn.count("/jwks") == 3)
        // Back up: after the failure pause, the next sign-in fetches and succeeds.
        try standIn.control(["jwks": ["keys": ["k1"]]])
        let verifier = try apple()
        try standIn.control(["jwks": ["mode": "down"]])
        #expect(refusal(verifier, try mint.token()) == .unavailable)
        try standIn.control(["jwks": ["keys": ["k1"]]])
        clock.advance(seconds: 6)
        #expect(refusal(verifier, try mint.token()) == nil)
    }

    @Test func aCachedSetPastItsMaxAgeServesItsKeysWhileTheProviderIsDown() throws {
        try standIn.control(["jwks": ["keys": ["k1"], "cacheControl": "max-age=300"]])
        let verifier = try apple()
        #expect(refusal(verifier, try mint.token()) == nil)
        try standIn.control(["jwks": ["mode": "down"]])
        clock.advance(seconds: 301)
        #expect(refusal(verifier, try mint.token()) == nil, "within the grace: the cached key")
        #expect(refusal(verifier, try mint.token(signer: "k2")) == .unavailable, "an unknown kid cannot be judged")
        clock.advance(seconds: 3_600)
        #expect(refusal(verifier, try mint.token()) == .unavailable, "past the grace")
    }

    @Test func anUntrustedCertificateIsUnavailable() throws {
        let verifier = try OIDCVerifier(.apple(audiences: ["com.example.pacenote"], jwksURL: standIn.jwksURL),
                                        client: try ProviderHTTPClient(ProviderHTTPClient.Configuration(timeoutMillis: 1_000)),
                                        monotonicClock: clock.now)
        #expect(refusal(verifier, try mint.token()) == .unavailable)
        #expect(standIn.count("/jwks") == 0, "TLS refused before any request")
    }

    @Test func googleTokensCarryEitherIssuerSpelling() throws {
        var google = mint
        google.issuer = "https://accounts.google.com"
        google.audience = "1234-abc.apps.googleusercontent.com"
        let verifier = try OIDCVerifier(.google(audiences: ["1234-abc.apps.googleusercontent.com"], jwksURL: standIn.jwksURL),
                                        client: try client(), monotonicClock: clock.now)
        let identity = try verifier.verify(token: try google.token(["email_verified": true, "name": "Kalle Rovanperä", "sub": "1090"]), nonce: nil)
        #expect(identity == VerifiedIdentity(provider: .google, subject: "1090", email: "kalle@privaterelay.appleid.com", emailVerified: true,
                                             name: "Kalle Rovanperä"))
        #expect(refusal(verifier, try google.token(["iss": "accounts.google.com"])) == nil)
        #expect(refusal(verifier, try google.token(["iss": "https://appleid.apple.com"])) == .invalidToken(reason: "issuer"))
        #expect(refusal(verifier, try mint.token()) == .invalidToken(reason: "issuer"), "an Apple token is not Google's")
    }

    @Test func oddKeysInTheSetAreSkipped() throws {
        // A 1024-bit key, an EC key and an encryption key beside k1: only k1 is kept.
        try standIn.control(["jwks": ["keys": ["k1", "small"], "extra": [["kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"]]]])
        let verifier = try apple()
        #expect(refusal(verifier, try mint.token(signer: "k1")) == nil)
        // Signed by k1 under the kid "small": were the 1024-bit key kept, the signature would fail.
        #expect(refusal(verifier, try mint.sign(mint.claims(), signer: "k1", kid: "small")) == .invalidToken(reason: "kid not in the provider's keys"))
        #expect(refusal(verifier, try mint.sign(mint.claims(), signer: "k1", kid: "ec")) == .invalidToken(reason: "kid not in the provider's keys"))
    }
}
