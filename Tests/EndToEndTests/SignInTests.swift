import Crypto
import Foundation
import TestSupport
import XCTest

/// The sign-in providers' settings of a server whose Apple keys and Facebook Graph API are the
/// identity stand-in (`Tests/Support/standins/identity_standin.py`) on loopback, over TLS from
/// the stand-in's own CA. Google is left off (its routes answer 503).
enum ProviderStandIn {
    static let audience = "com.example.pacenote"
    static let facebookAppID = "1234"
    static let facebookSecret = "s3cret-of-the-facebook-app"

    static func flags(_ standIn: IdentityStandIn) -> [String] {
        ["--apple-audience", audience + ",com.example.pacenote.web", "--apple-jwks-url", standIn.jwksURL,
         "--facebook-app-id", facebookAppID, "--facebook-app-secret", facebookSecret, "--facebook-graph-url", standIn.baseURL + "/",
         "--provider-ca-file", standIn.caFile]
    }

    /// Publishes `keys` and makes `tokens` (access token to its Graph answer) valid for the app.
    static func control(_ standIn: IdentityStandIn, keys: [String] = ["k1"], jwksMode: String = "ok",
                        tokens: [String: [String: Any]] = [:]) throws {
        try standIn.control([
            "jwks": ["keys": keys, "mode": jwksMode, "delay": 10],
            "graph": ["mode": "ok", "appId": facebookAppID, "appSecret": facebookSecret, "tokens": tokens],
        ])
    }
}

/// Sign in with Apple and Facebook through the real binary (API.md "Sign in with Apple, Google
/// and Facebook; imported social accounts"), on SQLite and, under `scripts/test`, PostgreSQL:
/// a new account in one request, the account rules (no linking by email, never losing the last
/// way in, passwordless accounts), and every hostile token refused.
final class SignInTests: ServerTestCase {
    private static let standIn = Result { try IdentityStandIn() }
    override class var serverArguments: [String] { (try? standIn.get()).map(ProviderStandIn.flags) ?? [] }

    private var standIn: IdentityStandIn!
    private var mint: TokenMint!

    /// Facebook tokens the Graph stand-in accepts for the app, by test.
    private var facebookTokens: [String: [String: Any]] = [:]

    override func setUpWithError() throws {
        standIn = try Self.standIn.get()
        mint = TokenMint(standIn: standIn)
        try ProviderStandIn.control(standIn)
        try super.setUpWithError()
    }

    private func subject() -> String { "000\(Int.random(in: 100_000...999_999)).\(UUID().uuidString.prefix(8).lowercased())" }

    /// POST /v1/sessions/apple with a token of `claims`; unless told, the address is the
    /// subject's own (the stand-in's default one is shared by every token).
    private func apple(_ claims: [String: Any] = [:], _ body: [String: Any] = [:]) throws -> HTTPResult {
        var claims = claims
        if claims["email"] == nil { claims["email"] = "\(claims["sub"] as? String ?? subject())@privaterelay.appleid.com" }
        var json = body
        json["identityToken"] = try mint.token(claims)
        return try client.request("POST", "/v1/sessions/apple", json: json)
    }

    private func facebook(_ token: String, userId: String, email: String? = nil, name: String = "Dani Sordo") throws -> HTTPResult {
        var answer: [String: Any] = ["userId": userId, "name": name]
        if let email { answer["email"] = email }
        facebookTokens[token] = answer
        try ProviderStandIn.control(standIn, tokens: facebookTokens)
        return try client.request("POST", "/v1/sessions/facebook", json: ["accessToken": token])
    }

    func testANewAppleUserSignsUpInOneRequestAndComesBackToTheSameAccount() throws {
        let sub = subject()
        let email = "\(sub.prefix(9))@privaterelay.appleid.com"
        // Apple's convention: the app sends the raw nonce, the token carries its SHA-256 in hex.
        let nonce = "n-0S6_WzA2Mj"
        let first = assertSuccess(try apple(["sub": sub, "email": email, "nonce": Hex.encode(SHA256.hash(nonce))],
                                            ["nonce": nonce, "displayName": "Kalle Rovanperä"]), 201)
        XCTAssertEqual(first["created"] as? Bool, true)
        let user = try XCTUnwrap(child(first, "user"))
        assertOwnUser(user, email: email)
        XCTAssertEqual(user["identities"] as? [String], ["apple"])
        XCTAssertEqual(user["hasPassword"] as? Bool, false)
        XCTAssertEqual(user["emailVerified"] as? Bool, true, "Apple vouches for the address")
        XCTAssertEqual(user["displayName"] as? String, "Kalle Rovanperä")
        let username = try XCTUnwrap(user["username"] as? String)
        XCTAssertTrue(username.hasPrefix("Kalle_Rovanper"), "derived from the name: \(username)")
        let token = try XCTUnwrap(first["sessionToken"] as? String)
        let me = assertSuccess(try client.me(token), 200)
        XCTAssertEqual(me["id"] as? String, user["id"] as? String)
        XCTAssertEqual(me["identities"] as? [String], ["apple"])

        // The same Apple id again (Apple sends the email only the first time): the same account.
        let again = assertSuccess(try apple(["sub": sub], ["username": "ignored_now"]), 201)
        XCTAssertEqual(again["created"] as? Bool, false)
        XCTAssertEqual(child(again, "user")?["id"] as? String, user["id"] as? String)
        XCTAssertEqual(child(again, "user")?["username"] as? String, username, "a given username only names a new account")
        XCTAssertNotEqual(again["sessionToken"] as? String, token, "a new session")
    }

    func testConcurrentFirstSignInsOfOneIdentityMakeOneAccount() throws {
        let sub = subject()
        let tokens = try (0..<8).map { _ in try mint.token(["sub": sub, "email": "\(sub)@privaterelay.appleid.com", "name": "Same Person"]) }
        let outcomes = runConcurrently(port: server.port, 8) { index, client in
            guard let result = try? client.request("POST", "/v1/sessions/apple", json: ["identityToken": tokens[index]]) else { return "no answer" }
            let user = result.object?["user"] as? [String: Any]
            return "\(result.status) \(user?["id"] as? String ?? result.errorCode ?? "") \(result.object?["created"] as? Bool ?? false)"
        }
        XCTAssertEqual(outcomes.filter { $0.hasPrefix("201 ") }.count, 8, "every sign-in answers 201:\n\(outcomes.joined(separator: "\n"))")
        XCTAssertEqual(Set(outcomes.map { $0.split(separator: " ")[1] }).count, 1, "one account: \(outcomes)")
        XCTAssertEqual(outcomes.filter { $0.hasSuffix(" true") }.count, 1, "made once: \(outcomes)")
        XCTAssertEqual(try identityRows(sub), 1)
    }

    func testAGivenUsernameIsCheckedAndAnEmaillessIdentityGetsAnAccountToo() throws {
        let taken = try client.signup()
        assertError(try apple(["sub": subject()], ["username": taken.username.uppercased()]), 400, "validation_failed", field: "username", "a taken username")
        assertError(try apple(["sub": subject()], ["username": "no spaces"]), 400, "validation_failed", field: "username")
        let chosen = "rally_" + Fake.username(length: 10)
        let made = assertSuccess(try apple(["sub": subject()], ["username": chosen]), 201)
        XCTAssertEqual(child(made, "user")?["username"] as? String, chosen)

        // Without any email or name: a placeholder address, never verified, and a derived username.
        let bare = assertSuccess(try client.request("POST", "/v1/sessions/apple", json: [
            "identityToken": try mint.sign(mint.claims(["sub": subject()], dropping: ["email", "email_verified"])),
        ]), 201)
        let user = try XCTUnwrap(child(bare, "user"))
        XCTAssertTrue((user["email"] as? String ?? "").hasSuffix("@users.invalid"), "\(user)")
        XCTAssertEqual(user["emailVerified"] as? Bool, false)
        XCTAssertTrue((user["username"] as? String ?? "").hasPrefix("apple_user"), "\(user)")
    }

    func testAnIdentityIsNeverLinkedByEmailButCanBeLinkedAfterSigningIn() throws {
        let owner = try client.signup()
        let sub = subject()
        // The owner's address, in another case: refused, nothing made or linked.
        assertError(try apple(["sub": sub, "email": owner.email.uppercased()]), 409, "account_exists", field: "email")
        XCTAssertEqual(try identityRows(sub), 0)

        func link(_ account: Account, _ claims: [String: Any], password: String? = nil) throws -> HTTPResult {
            try client.request("POST", "/v1/users/me/identities/apple",
                               json: ["token": try mint.token(claims), "currentPassword": password ?? account.password], token: account.token)
        }
        // The session alone links nothing (a stolen one would link the thief's Apple id).
        assertError(try client.request("POST", "/v1/users/me/identities/apple", json: ["token": try mint.token(["sub": sub])], token: owner.token),
                    403, "invalid_credentials", field: "currentPassword")
        assertError(try link(owner, ["sub": sub], password: "not-the-password"), 403, "invalid_credentials", field: "currentPassword")
        XCTAssertEqual(try identityRows(sub), 0)
        let linked = assertSuccess(try link(owner, ["sub": sub]), 200)
        XCTAssertEqual(linked["identities"] as? [String], ["apple"])
        XCTAssertEqual(linked["hasPassword"] as? Bool, true)
        // Linking it again is a no-op; linking it to somebody else is a conflict.
        assertSuccess(try link(owner, ["sub": sub]), 200)
        let other = try client.signup()
        assertError(try link(other, ["sub": sub]), 409, "conflict")
        // A second Apple id on the same account: unlink the first one first.
        assertError(try link(owner, ["sub": subject()]), 409, "conflict")
        // A refused token keeps the app signed in (403, not 401).
        assertError(try link(owner, ["aud": "com.someone.else"]), 403, "invalid_credentials")
        assertError(try client.request("POST", "/v1/users/me/identities/twitter", json: ["token": "x", "currentPassword": owner.password], token: owner.token),
                    400, "validation_failed")

        // Now Apple signs into the owner's account, email or not.
        let signedIn = assertSuccess(try apple(["sub": sub, "email": owner.email]), 201)
        XCTAssertEqual(signedIn["created"] as? Bool, false)
        XCTAssertEqual(child(signedIn, "user")?["id"] as? String, owner.id)

        // With a password beside it, the identity can go; then it signs into nothing of the owner's.
        let unlinked = assertSuccess(try client.request("DELETE", "/v1/users/me/identities/apple", token: owner.token), 200)
        XCTAssertEqual(unlinked["identities"] as? [String], [])
        assertError(try client.request("DELETE", "/v1/users/me/identities/apple", token: owner.token), 404, "not_found")
        assertError(try apple(["sub": sub, "email": owner.email]), 409, "account_exists", field: "email")
    }

    func testAnAccountWithoutAPasswordKeepsItsLastWayInSetsAPasswordAndDeletesItselfWithAToken() throws {
        let sub = subject()
        let made = assertSuccess(try apple(["sub": sub, "email": "\(sub.prefix(9))@example.org"]), 201)
        let token = try XCTUnwrap(made["sessionToken"] as? String)
        let user = try XCTUnwrap(child(made, "user"))

        assertError(try client.request("DELETE", "/v1/users/me/identities/apple", token: token), 409, "conflict", "the only way in")
        // An email change is confirmed with the provider's token instead of a password.
        assertError(try client.request("PATCH", "/v1/users/me", json: ["email": "moved-\(sub.prefix(6))@example.org"], token: token),
                    400, "validation_failed", field: "currentPassword")
        let moved = assertSuccess(try client.request("PATCH", "/v1/users/me", json: [
            "email": "moved-\(sub.prefix(6))@example.org", "provider": "apple", "token": try mint.token(["sub": sub]),
        ], token: token), 200)
        XCTAssertEqual(moved["email"] as? String, "moved-\(sub.prefix(6))@example.org")
        assertError(try client.request("PATCH", "/v1/users/me", json: [
            "email": "again-\(sub.prefix(6))@example.org", "provider": "apple", "token": try mint.token(["sub": subject()]),
        ], token: token), 403, "invalid_credentials", "another Apple id's token confirms nothing")

        // A first password needs a fresh token of the linked provider, never the session alone...
        let password = Fake.password()
        assertError(try client.request("PUT", "/v1/users/me/password", json: ["newPassword": password], token: token),
                    403, "invalid_credentials", field: "proof", "a stolen session must not take the account in one step")
        assertError(try client.request("PUT", "/v1/users/me/password", json: [
            "newPassword": password, "proof": ["provider": "apple", "token": try mint.token(["sub": subject()])],
        ], token: token), 403, "invalid_credentials", "another Apple id's token")
        XCTAssertEqual(try client.me(token).object?["hasPassword"] as? Bool, false)
        assertSuccess(try client.request("PUT", "/v1/users/me/password", json: [
            "newPassword": password, "proof": ["provider": "apple", "token": try mint.token(["sub": sub])],
        ], token: token), 204)
        XCTAssertEqual(try client.me(token).object?["hasPassword"] as? Bool, true)
        let (passwordToken, _) = try client.login(user["username"] as? String ?? "", password)
        // ...a second one does.
        assertError(try client.request("PUT", "/v1/users/me/password", json: ["newPassword": Fake.password()], token: passwordToken),
                    400, "validation_failed", field: "currentPassword")

        // Deleting: a foreign token is refused, the account's own provider token is enough.
        assertError(try client.request("DELETE", "/v1/users/me", json: ["provider": "apple", "token": try mint.token(["sub": subject()])], token: passwordToken),
                    403, "invalid_credentials")
        assertSuccess(try client.request("DELETE", "/v1/users/me", json: ["provider": "apple", "token": try mint.token(["sub": sub])], token: passwordToken), 204)
        assertError(try client.me(passwordToken), 401, "invalid_session")
        XCTAssertEqual(try identityRows(sub), 0, "the identity went with the account")
        // The Apple id is free again: it makes a new account.
        XCTAssertEqual(assertSuccess(try apple(["sub": sub]), 201)["created"] as? Bool, true)
    }

    func testABannedAccountCannotSignInWithItsProvider() throws {
        let sub = subject()
        let made = assertSuccess(try apple(["sub": sub]), 201)
        let id = try XCTUnwrap(child(made, "user")?["id"] as? String)
        // An admin sees how the account signs in; anyone else does not.
        let seen = assertSuccess(try client.request("GET", "/v1/users/\(id)", token: try admin().token), 200)
        XCTAssertEqual(seen["identities"] as? [String], ["apple"])
        XCTAssertEqual(seen["hasPassword"] as? Bool, false)
        XCTAssertNil(seen["email"], "ways in, not the private fields")
        let other = assertSuccess(try client.request("GET", "/v1/users/\(id)", token: try client.signup().token), 200)
        XCTAssertNil(other["identities"])
        XCTAssertNil(other["hasPassword"])
        let moderator = try moderator()
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(id)/ban", json: ["reason": "abuse"], token: moderator.token), 200)
        assertError(try apple(["sub": sub]), 403, "account_banned")
        assertError(try client.me(try XCTUnwrap(made["sessionToken"] as? String)), 401, "invalid_session")
    }

    /// Anyone can fail ten passwords for a username: that locks the password login, never the
    /// provider's (API.md), which a password-less account has as its only way in.
    func testAPasswordLockoutNeverBlocksAProviderSignIn() throws {
        let sub = subject()
        let made = assertSuccess(try apple(["sub": sub]), 201)
        let username = try XCTUnwrap(child(made, "user")?["username"] as? String)
        for _ in 0..<10 { _ = try client.request("POST", "/v1/sessions", json: ["login": username, "password": "wrong-password-1"]) }
        let locked = try client.request("POST", "/v1/sessions", json: ["login": username, "password": "wrong-password-1"])
        assertError(locked, 429, "account_locked", "the password login is locked")
        let again = assertSuccess(try apple(["sub": sub]), 201)
        XCTAssertEqual(child(again, "user")?["id"] as? String, child(made, "user")?["id"] as? String)
    }

    func testEveryHostileTokenIsRefusedAndMakesNothing() throws {
        let sub = subject()
        let claims = mint.claims(["sub": sub])
        let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims)))
        let hsInput = Base64URL.encode(Array(#"{"alg":"HS256","kid":"k1","typ":"JWT"}"#.utf8)) + "." + payload
        let hsMAC = HMACKey(bytes: Array(try standIn.publicKeyPEM("k1").utf8)).authenticationCode(for: Array(hsInput.utf8))
        let hostile: [(String, String)] = [
            ("expired", try mint.token(["sub": sub, "exp": mint.now - 600])),
            ("another app's audience", try mint.token(["sub": sub, "aud": "com.someone.else"])),
            ("another issuer", try mint.token(["sub": sub, "iss": "https://accounts.google.com"])),
            ("a key not in the JWKS, under a published kid", try mint.sign(claims, signer: "rogue", kid: "k1")),
            ("a key not in the JWKS, under its own kid", try mint.sign(claims, signer: "rogue")),
            ("alg none", Base64URL.encode(Array(#"{"alg":"none","kid":"k1"}"#.utf8)) + "." + payload + "."),
            ("HS256 with the public key as secret", hsInput + "." + Base64URL.encode(hsMAC)),
            ("garbage", "not.a.token"),
            ("empty", ""),
        ]
        for (name, token) in hostile {
            assertError(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": token]), 401, "invalid_credentials", name)
        }
        // A nonce the app gave that the token does not carry; the token's own claim sent back
        // as the nonce (whoever stole the token has it); not yet valid; a critical extension.
        assertError(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": try mint.token(["sub": sub, "nonce": "abc"]), "nonce": "xyz"]),
                    401, "invalid_credentials", "nonce")
        assertError(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": try mint.token(["sub": sub, "nonce": "abc"]), "nonce": "abc"]),
                    401, "invalid_credentials", "the claim as the nonce")
        assertError(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": try mint.token(["sub": sub, "nbf": mint.now + 3_600])]),
                    401, "invalid_credentials", "nbf in the future")
        assertError(try client.request("POST", "/v1/sessions/apple", json: [
            "identityToken": try mint.sign(claims, header: ["alg": "RS256", "kid": "k1", "typ": "JWT", "crit": ["http://example.com/ext"]]),
        ]), 401, "invalid_credentials", "crit")
        assertError(try client.request("POST", "/v1/sessions/apple", json: ["nonce": "xyz"]), 400, "validation_failed", field: "identityToken")
        assertError(try client.request("POST", "/v1/sessions/facebook", json: ["accessToken": "EAAUnknownToken"]), 401, "invalid_credentials")
        XCTAssertEqual(try identityRows(sub), 0)
        // Google has no settings on this server.
        assertError(try client.request("POST", "/v1/sessions/google", json: ["idToken": try mint.token(["sub": sub])]), 503, "unavailable")
        // The refusals are in the log with the failed check, never the token.
        XCTAssertTrue(server.output.allLines.contains { $0.contains("provider token refused") && $0.contains("audience") })
    }

    /// Facebook never says it verified an address, so a Facebook account starts without one:
    /// kept, it would be the victim's `email_taken` (account pre-hijacking, issue 43).
    func testAFacebookUserSignsInAndItsUnverifiedAddressIsNeitherKeptNorCompared() throws {
        let userId = String(Int.random(in: 10_000_000...99_999_999))
        let victim = "fb-\(userId)@example.com"
        let made = assertSuccess(try facebook("EAA\(userId)First", userId: userId, email: victim), 201)
        XCTAssertEqual(made["created"] as? Bool, true)
        let user = try XCTUnwrap(child(made, "user"))
        XCTAssertEqual(user["identities"] as? [String], ["facebook"])
        XCTAssertTrue((user["email"] as? String ?? "").hasSuffix("@users.invalid"), "not the unverified address: \(user)")
        XCTAssertEqual(user["emailVerified"] as? Bool, false)
        let again = assertSuccess(try facebook("EAA\(userId)Second", userId: userId), 201)
        XCTAssertEqual(child(again, "user")?["id"] as? String, user["id"] as? String)
        // The address's owner signs up with it afterwards.
        XCTAssertEqual(try client.signup(email: victim).email, victim)

        // Another Facebook user whose (unverified) address is a password account's: nothing is
        // refused or linked because of it.
        let owner = try client.signup()
        let other = assertSuccess(try facebook("EAA\(userId)Third", userId: userId + "1", email: owner.email), 201)
        XCTAssertEqual(other["created"] as? Bool, true)
        XCTAssertNotEqual(child(other, "user")?["id"] as? String, owner.id)
        // Apple with email_verified false is no different.
        let unverified = assertSuccess(try apple(["sub": subject(), "email": owner.email, "email_verified": "false"]), 201)
        XCTAssertTrue((child(unverified, "user")?["email"] as? String ?? "").hasSuffix("@users.invalid"))
    }

    /// A stolen ID token with a nonce replays nothing: the nonce signs in once.
    func testANonceSignsInOnce() throws {
        let nonce = "raw-\(UUID().uuidString)"
        let token = try mint.token(["sub": subject(), "nonce": Hex.encode(SHA256.hash(nonce))])
        assertSuccess(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": token, "nonce": nonce]), 201)
        assertError(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": token, "nonce": nonce]), 401, "invalid_credentials", "replayed")
        assertError(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": token]), 401, "invalid_credentials", "replayed without the nonce")
    }

    private func identityRows(_ subject: String) throws -> Int {
        try server.withDatabase { db in try db.int("SELECT COUNT(*) FROM identities WHERE subject = \(subject)") }
    }
}

/// A provider that is slow or down: sign-in answers 503 `unavailable` after a bounded wait,
/// and the server keeps answering everything else meanwhile.
final class SignInOutageTests: ServerTestCase {
    private static let standIn = Result { try IdentityStandIn() }
    override class var serverArguments: [String] { (try? standIn.get()).map(ProviderStandIn.flags) ?? [] }

    func testASlowOrDownJWKSIsUnavailableWithinTheBound() throws {
        let standIn = try Self.standIn.get()
        let mint = TokenMint(standIn: standIn)
        try ProviderStandIn.control(standIn, jwksMode: "slow")
        // Sign-ins wait on blocking-pool threads; meanwhile other requests are served.
        let tokens = try (0..<4).map { _ in try mint.token() }
        let health = Locked<(status: Int, seconds: Double)?>(nil)
        let port = server.port
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.5)
            let client = HTTPClient(port: port)
            defer { client.close() }
            let sent = Date()
            let status = (try? client.request("GET", "/healthz"))?.status ?? 0
            health.withLock { $0 = (status, Date().timeIntervalSince(sent)) }
        }
        let started = Date()
        let outcomes = runConcurrently(port: port, 4) { index, client in
            guard let result = try? client.request("POST", "/v1/sessions/apple", json: ["identityToken": tokens[index]]) else { return "no answer" }
            return "\(result.status) \(result.errorCode ?? "") \(result.headers["retry-after"] ?? "-")"
        }
        let waited = Date().timeIntervalSince(started)
        XCTAssertEqual(outcomes, Array(repeating: "503 unavailable 5", count: 4))
        XCTAssertGreaterThan(waited, 2, "the server waited for the provider (3 s)")
        XCTAssertLessThan(waited, 8, "bounded by the provider timeout (3 s), not the stand-in's 10 s")
        let served = try XCTUnwrap(health.withLock { $0 }, "/healthz answered while the sign-ins waited")
        XCTAssertEqual(served.status, 200)
        XCTAssertLessThan(served.seconds, 1)

        try ProviderStandIn.control(standIn, jwksMode: "down")
        // The failed fetch is not retried at once (5 s apart): still 503, quickly.
        assertError(try client.request("POST", "/v1/sessions/apple", json: ["identityToken": try mint.token()]), 503, "unavailable")
        // Once the provider is back, sign-in works.
        try ProviderStandIn.control(standIn)
        let deadline = Date().addingTimeInterval(15)
        var last: HTTPResult?
        repeat {
            last = try client.request("POST", "/v1/sessions/apple", json: ["identityToken": try mint.token(["sub": "back.\(UUID().uuidString.prefix(6))"])])
            if last?.status == 201 { break }
            Thread.sleep(forTimeInterval: 0.5)
        } while Date() < deadline
        XCTAssertEqual(last?.status, 201, "\(String(describing: last))")
    }
}

/// A community moving off Parse: the social export (`Tests/Support/fixtures/parse-export-social`)
/// imported with `pacenote import-parse`, then its 2014 Facebook users sign in with Facebook and
/// find their accounts, their videos and their follows, with or without an email.
final class ImportedSocialSignInTests: ServerTestCase {
    private static let standIn = Result { try IdentityStandIn() }
    override class var serverArguments: [String] { (try? standIn.get()).map(ProviderStandIn.flags) ?? [] }

    override class func prepareServer(_ server: TestServer) throws {
        let run = server.runCLI(["import-parse", SocialImportTests.fixtureDirectory.path], timeout: 120)
        guard run.status == 0 else { throw StandInError(description: "import-parse: exit \(run.status)\n\(run.stdout)\n\(run.stderr)") }
    }

    func testA2014FacebookUserSignsIntoTheImportedAccountAndSeesTheirVideos() throws {
        let standIn = try Self.standIn.get()
        try ProviderStandIn.control(standIn, tokens: [
            "EAA2026Token1": ["userId": "10152384756102938", "name": "Dani Sordo", "email": "fb2014@example.com"],
            "EAA2026Token2": ["userId": "10204455667788990", "name": "Sin Correo"],
            "EAA2026Token3": ["userId": "10152384756102938"],
        ])
        let signedIn = assertSuccess(try client.request("POST", "/v1/sessions/facebook", json: ["accessToken": "EAA2026Token1"]), 201)
        XCTAssertEqual(signedIn["created"] as? Bool, false, "the imported account, not a new one")
        XCTAssertEqual(try server.withDatabase { db in try db.int("SELECT COUNT(*) FROM identities WHERE vouched = \(false)") }, 0,
                       "imported links count as vouched: a 2014 user's reset keeps their Facebook sign-in")
        let user = try XCTUnwrap(child(signedIn, "user"))
        XCTAssertEqual(user["id"] as? String, "Fb2014User")
        XCTAssertEqual(user["email"] as? String, "fb2014@example.com")
        XCTAssertEqual(user["identities"] as? [String], ["facebook"])
        XCTAssertEqual(user["hasPassword"] as? Bool, false)
        XCTAssertTrue((user["createdAt"] as? String ?? "").hasPrefix("2014-03-14"), "\(user)")
        let token = try XCTUnwrap(signedIn["sessionToken"] as? String)

        let videos = assertSuccess(try client.request("GET", "/v1/users/Fb2014User/videos", token: token), 200)
        let ids = (videos["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        XCTAssertEqual(Set(ids), ["Fb14Video1", "Fb14Video2", "Fb14Video3"], "\(videos)")
        let following = assertSuccess(try client.request("GET", "/v1/users/Fb2014User/following", token: token), 200)
        XCTAssertEqual((following["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["TwMail0001"])

        // Without an email in the export or at Facebook: in too, and it can set a password now,
        // proving itself with the Facebook token.
        let bare = assertSuccess(try client.request("POST", "/v1/sessions/facebook", json: ["accessToken": "EAA2026Token2"]), 201)
        XCTAssertEqual(child(bare, "user")?["id"] as? String, "FbNoMail01")
        XCTAssertEqual(bare["created"] as? Bool, false)
        let bareToken = try XCTUnwrap(bare["sessionToken"] as? String)
        assertSuccess(try client.request("PUT", "/v1/users/me/password", json: [
            "newPassword": "a-first-password-2026", "proof": ["provider": "facebook", "token": "EAA2026Token2"],
        ], token: bareToken), 204)
        XCTAssertEqual(try client.me(bareToken).object?["hasPassword"] as? Bool, true)

        // The duplicate of the export (FbDupl0001 had the same Facebook id) was not linked: the id
        // signs into Fb2014User only.
        XCTAssertEqual(child(assertSuccess(try client.request("POST", "/v1/sessions/facebook", json: ["accessToken": "EAA2026Token3"]), 201), "user")?["id"] as? String,
                       "Fb2014User")
    }
}
