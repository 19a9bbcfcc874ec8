import Foundation
import TestSupport
import XCTest

/// Issue 43's account takeovers through the real binary, with mail and the providers'
/// stand-ins, on SQLite and (under `scripts/test`) PostgreSQL: the attacker who signs up first
/// with the victim's address and links their own Apple id loses it when the victim takes the
/// account back by a reset, and a link is always told to the account's address.
final class AccountTakeoverTests: XCTestCase {
    private var standIn: IdentityStandIn!
    private var mint: TokenMint!
    private var mail: MailServer!
    private var client: HTTPClient { mail.client }

    override func setUpWithError() throws {
        standIn = try IdentityStandIn()
        mint = TokenMint(standIn: standIn)
        try ProviderStandIn.control(standIn)
        // Google on too (the same stand-in's keys), for its unverified addresses.
        mail = try MailServer(smtp: try SMTPStandIn(), extra: ProviderStandIn.flags(standIn) + [
            "--google-audience", Self.googleAudience, "--google-jwks-url", standIn.jwksURL,
        ])
    }

    private static let googleAudience = "1234-abc.apps.googleusercontent.com"

    private func google(_ claims: [String: Any]) throws -> HTTPResult {
        var google: TokenMint = mint
        google.issuer = "https://accounts.google.com"
        google.audience = Self.googleAudience
        return try client.request("POST", "/v1/sessions/google", json: ["idToken": try google.token(claims)])
    }

    override func tearDown() {
        mail = nil
        standIn = nil
    }

    private func subject() -> String { "001\(Int.random(in: 100_000...999_999)).\(UUID().uuidString.prefix(8).lowercased())" }

    private func appleSignIn(_ sub: String) throws -> HTTPResult {
        try client.request("POST", "/v1/sessions/apple", json: ["identityToken": try mint.token(["sub": sub, "email": "\(sub)@privaterelay.appleid.com"])])
    }

    /// The messages to `address` so far, by subject.
    private func subjects(to address: String, atLeast count: Int) -> [String] {
        var found: [String] = []
        _ = waitUntil(timeout: 20) {
            found = mail.smtp.messages().filter { ($0["rcptTos"] as? [String])?.contains(address) == true }.compactMap { $0["subject"] as? String }
            return found.count >= count
        }
        return found
    }

    func testAPasswordSignupOnSomeoneElsesAddressLosesItsLinkedProviderWhenTheOwnerResets() throws {
        // The attacker signs up with the victim's address (unverified) and links their own Apple id.
        let victim = Fake.email(for: Fake.username())
        let attacker = try client.signup(email: victim)
        let attackersApple = subject()
        assertSuccess(try client.request("POST", "/v1/users/me/identities/apple", json: [
            "token": try mint.token(["sub": attackersApple]), "currentPassword": attacker.password,
        ], token: attacker.token), 200)
        XCTAssertEqual(assertSuccess(try appleSignIn(attackersApple), 201)["created"] as? Bool, false, "the attacker's way in, for now")
        // The address is told of the link (beside the sign-up's verification mail).
        let told = subjects(to: victim, atLeast: 2)
        XCTAssertTrue(told.contains("Apple was linked to your account"), "\(told)")

        // The owner cannot sign up (email_taken) and takes the account back by a reset.
        assertError(try client.request("POST", "/v1/users", json: ["username": Fake.username(), "email": victim, "password": Fake.password()]),
                    409, "email_taken")
        assertSuccess(try client.request("POST", "/v1/password-resets", json: ["email": victim]), 204)
        let messages = mail.smtp.waitForMessages(3)
        guard let reset = messages.last(where: { ($0["subject"] as? String) == "Reset your password" }),
              let token = mail.token(in: reset, path: "/account/reset") else { return XCTFail("no reset mail: \(messages.map { $0["subject"] ?? "" })") }
        let ownersPassword = Fake.password()
        assertSuccess(try client.request("POST", "/v1/password-resets/confirm", json: ["token": token, "password": ownersPassword]), 204)

        // The attacker keeps no way in: the session ended, the password changed, the Apple id
        // makes a new, empty account of its own.
        assertError(try client.me(attacker.token), 401, "invalid_session")
        let (ownerToken, owner) = try client.login(victim, ownersPassword)
        XCTAssertEqual(owner["identities"] as? [String], [])
        XCTAssertEqual(owner["emailVerified"] as? Bool, true, "the reset proved the mailbox")
        let back = assertSuccess(try appleSignIn(attackersApple), 201)
        XCTAssertEqual(back["created"] as? Bool, true)
        XCTAssertNotEqual(child(back, "user")?["id"] as? String, attacker.id)

        // What the owner links after proving the mailbox survives the next reset.
        let ownersApple = subject()
        assertSuccess(try client.request("POST", "/v1/users/me/identities/apple", json: [
            "token": try mint.token(["sub": ownersApple]), "currentPassword": ownersPassword,
        ], token: ownerToken), 200)
        assertSuccess(try client.request("POST", "/v1/password-resets", json: ["email": victim]), 204)
        let again = mail.smtp.waitForMessages(messages.count + 2)
        guard let second = again.last(where: { ($0["subject"] as? String) == "Reset your password" }),
              let secondToken = mail.token(in: second, path: "/account/reset"), secondToken != token else { return XCTFail("no second reset mail") }
        assertSuccess(try client.request("POST", "/v1/password-resets/confirm", json: ["token": secondToken, "password": Fake.password()]), 204)
        XCTAssertEqual(child(assertSuccess(try appleSignIn(ownersApple), 201), "user")?["id"] as? String, attacker.id, "the owner's own link stays")
    }

    /// Google with `email_verified: false` for the victim's address: the attacker's account gets
    /// no email, the owner signs up with it, and the attacker's Google still reaches only its own
    /// empty account.
    func testAnUnverifiedGoogleAddressNeverBecomesTheAccountsNorBlocksItsOwner() throws {
        let victim = Fake.email(for: Fake.username())
        let attackersGoogle = "g\(Int.random(in: 100_000...999_999))"
        let made = assertSuccess(try google(["sub": attackersGoogle, "email": victim, "email_verified": false]), 201)
        let attackersAccount = try XCTUnwrap(child(made, "user"))
        XCTAssertTrue((attackersAccount["email"] as? String ?? "").hasSuffix("@users.invalid"), "\(attackersAccount)")
        XCTAssertEqual(attackersAccount["emailVerified"] as? Bool, false)

        let owner = try client.signup(email: victim)
        XCTAssertNotEqual(owner.id, attackersAccount["id"] as? String)
        XCTAssertEqual(try client.me(owner.token).object?["identities"] as? [String], [], "nothing linked to the owner")
        let again = assertSuccess(try google(["sub": attackersGoogle, "email": victim, "email_verified": false]), 201)
        XCTAssertEqual(child(again, "user")?["id"] as? String, attackersAccount["id"] as? String)
        // A vouched-for Google address of an existing account is refused, never linked.
        assertError(try google(["sub": attackersGoogle + "1", "email": victim, "email_verified": true]), 409, "account_exists", field: "email")
    }

    func testAStolenSessionLinksNothingAndAPasswordlessAccountNeedsAProofForEachChange() throws {
        let sub = subject()
        let made = assertSuccess(try appleSignIn(sub), 201)
        let session = try XCTUnwrap(made["sessionToken"] as? String)
        // The thief has the session and a Facebook account, not the owner's Apple token.
        try ProviderStandIn.control(standIn, tokens: ["EAAThief": ["userId": "77001", "name": "Thief"], "EAAOwner": ["userId": "77002", "name": "Owner"]])
        let thiefs = subject()
        assertError(try client.request("POST", "/v1/users/me/identities/facebook", json: ["token": "EAAThief"], token: session),
                    403, "invalid_credentials", field: "proof")
        assertError(try client.request("POST", "/v1/users/me/identities/facebook", json: [
            "token": "EAAThief", "proof": ["provider": "apple", "token": try mint.token(["sub": thiefs])],
        ], token: session), 403, "invalid_credentials", field: "proof")
        assertError(try client.request("POST", "/v1/users/me/identities/facebook", json: ["token": "EAAThief", "currentPassword": "guess"], token: session),
                    403, "invalid_credentials", field: "proof", "no password to give")
        assertError(try client.request("PUT", "/v1/users/me/password", json: ["newPassword": Fake.password()], token: session),
                    403, "invalid_credentials", field: "proof")
        XCTAssertEqual(try client.me(session).object?["identities"] as? [String], ["apple"])

        // The owner, with a fresh token of their Apple id, links their Facebook.
        let linked = assertSuccess(try client.request("POST", "/v1/users/me/identities/facebook", json: [
            "token": "EAAOwner", "proof": ["provider": "apple", "token": try mint.token(["sub": sub])],
        ], token: session), 200)
        XCTAssertEqual(linked["identities"] as? [String], ["apple", "facebook"])
    }
}
