import Foundation
import TestSupport
import XCTest

/// The facade's mails are `/v1`'s: a Parse sign-up mails the verification link, and a Parse
/// reset request takes `POST /v1/password-resets`'s path (a link to an account's address, a
/// line saying so to any other), with `{}` either way.
final class ParseFacadeMailTests: XCTestCase {
    func testSignUpAndPasswordResetThroughTheFacadeMailAsV1Does() throws {
        let mail = try MailServer(smtp: try SMTPStandIn(), extra: ["--parse-app-id", "mail-app"])
        let headers = ["X-Parse-Application-Id": "mail-app"]
        let email = "parse-\(Fake.username())@example.com"
        let signUp = try mail.client.request("POST", "/parse/users", headers: headers,
                                             json: ["username": Fake.username(), "password": "a long password", "email": email])
        XCTAssertEqual(signUp.status, 201, "\(signUp)")
        let verification = mail.smtp.waitForMessages(1)
        XCTAssertEqual(verification.compactMap { ($0["rcptTos"] as? [String])?.first }, [email])

        let nobody = "nobody-\(Fake.username())@example.com"
        for address in [email, nobody] {
            let reset = try mail.client.request("POST", "/1/requestPasswordReset", headers: headers, json: ["email": address])
            XCTAssertEqual(reset.status, 200, "\(reset)")
            XCTAssertEqual(reset.object?.count, 0)
        }
        let messages = mail.smtp.waitForMessages(3)
        XCTAssertEqual(messages.compactMap { ($0["rcptTos"] as? [String])?.first }, [email, email, nobody])
        guard messages.count == 3 else { return }
        XCTAssertNotNil(mail.token(in: messages[1], path: "/account/reset"), "the account's address gets its link")
        XCTAssertFalse(messages[2].plainText.contains("/account/"), "no link for an address without an account")
        // A malformed address is Parse's 125, from the same check as /v1's.
        let malformed = try mail.client.request("POST", "/parse/requestPasswordReset", headers: headers, json: ["email": "not-an-address"])
        XCTAssertEqual(malformed.status, 400, "\(malformed)")
        XCTAssertEqual(malformed.object?["code"] as? Int, 125)
    }
}
