import Foundation
import TestSupport
import XCTest

/// API.md "Email verification and password reset", through the real binary and an SMTP stand-in.
final class AccountMailTests: XCTestCase {
    func testSignupMailsAVerificationLinkThatVerifiesOnce() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        let account = try mail.client.signup()
        XCTAssertEqual(account.user["emailVerified"] as? Bool, false)
        XCTAssertEqual(account.user["locale"] as? String, "en", "no Accept-Language: English")

        let messages = mail.smtp.waitForMessages(1)
        guard let message = messages.first else { return XCTFail("no verification mail within 20 s") }
        XCTAssertEqual(message["rcptTos"] as? [String], [account.email])
        XCTAssertEqual(message["mailFrom"] as? String, MailServer.from)
        XCTAssertEqual(message["to"] as? String, account.email)
        XCTAssertEqual(message["subject"] as? String, "Confirm your email address")
        XCTAssertEqual(message["contentType"] as? String, "multipart/alternative")
        XCTAssertEqual(message["mimeVersion"] as? String, "1.0")
        XCTAssertTrue((message["messageId"] as? String)?.hasSuffix("@example.com>") ?? false, "Message-ID: \(message["messageId"] ?? "none")")
        XCTAssertFalse((message["date"] as? String ?? "").isEmpty, "a Date header")
        XCTAssertTrue(message.plainText.contains("Hi \(account.username),"))
        guard let token = mail.token(in: message, path: "/account/verify") else { return }

        assertSuccess(try mail.client.request("POST", "/v1/email-verifications/confirm", json: ["token": token]), 204)
        XCTAssertEqual(try mail.client.me(account.token).object?["emailVerified"] as? Bool, true, "the address is verified")
        assertError(try mail.client.request("POST", "/v1/email-verifications/confirm", json: ["token": token]), 400, "invalid_token",
                    "a used token")
        assertError(try mail.client.request("POST", "/v1/email-verifications/confirm", json: ["token": "x" + token.dropFirst()]),
                    400, "invalid_token", "an unknown token")
        XCTAssertFalse(mail.server.output.allLines.contains { $0.contains(token) }, "no log line carries a mailed token")
        XCTAssertTrue(mail.server.runCLI(["outbox", "list"]).stdout.contains("\tmail\tmail.account\tdone\t"), "the mail went through the outbox's mail lane")
    }

    func testSpanishAccountsGetSpanishMailsWithAnEncodedSubject() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        let username = Fake.username()
        let signup = try mail.client.request("POST", "/v1/users", headers: ["Accept-Language": "es-ES,es;q=0.9,en;q=0.5"],
                                             json: ["username": username, "email": Fake.email(for: username), "password": Fake.password()])
        XCTAssertEqual(assertSuccess(signup, 201)["user"].flatMap { ($0 as? [String: Any])?["locale"] as? String }, "es",
                       "the locale comes from Accept-Language")
        guard let message = mail.smtp.waitForMessages(1).first else { return XCTFail("no mail") }
        XCTAssertEqual(message["subject"] as? String, "Confirma tu dirección de correo")
        XCTAssertTrue((message["rawSubject"] as? String ?? "").hasPrefix("=?UTF-8?B?"), "RFC 2047: \(message["rawSubject"] ?? "")")
        XCTAssertTrue(message.plainText.contains("Hola, \(username):"), message.plainText)
        XCTAssertTrue(message.htmlText.contains("<html lang=\"es\">"), message.htmlText)
    }

    func testLocaleIsSetOnSignupAndByPatch() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        let username = Fake.username()
        let signup = try mail.client.request("POST", "/v1/users", headers: ["Accept-Language": "es"],
                                             json: ["username": username, "email": Fake.email(for: username), "password": Fake.password(), "locale": "en"])
        let body = assertSuccess(signup, 201)
        XCTAssertEqual((body["user"] as? [String: Any])?["locale"] as? String, "en", "the body's locale wins over Accept-Language")
        guard let token = body["sessionToken"] as? String else { return XCTFail("no token") }
        XCTAssertEqual(assertSuccess(try mail.client.request("PATCH", "/v1/users/me", json: ["locale": "es"], token: token), 200)["locale"] as? String, "es")
        XCTAssertEqual(try mail.client.me(token).object?["locale"] as? String, "es")
        assertError(try mail.client.request("PATCH", "/v1/users/me", json: ["locale": "fr"], token: token), 400, "validation_failed", field: "locale")
        assertError(try mail.client.request("PATCH", "/v1/users/me", json: ["locale": NSNull()], token: token), 400, "validation_failed", field: "locale")
    }

    func testANewVerificationReplacesTheOldAndAnEmailChangeMailsTheNewAddress() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        let account = try mail.client.signup()
        guard let first = mail.smtp.waitForMessages(1).first.flatMap({ mail.token(in: $0, path: "/account/verify") }) else { return }
        assertSuccess(try mail.client.request("POST", "/v1/users/me/email-verification", token: account.token), 204)
        let second = mail.smtp.waitForMessages(2)
        XCTAssertEqual(second.count, 2, "a second mail")
        guard second.count == 2, let secondToken = mail.token(in: second[1], path: "/account/verify") else { return }
        assertError(try mail.client.request("POST", "/v1/email-verifications/confirm", json: ["token": first]), 400, "invalid_token",
                    "the new token replaced the old")

        let newEmail = "new-" + account.email
        assertSuccess(try mail.client.request("PATCH", "/v1/users/me", json: ["email": newEmail, "currentPassword": account.password],
                                              token: account.token), 200)
        let fourth = mail.smtp.waitForMessages(4)
        XCTAssertEqual(fourth.count, 4, "an email change mails the new address and the old one")
        guard fourth.count == 4 else { return }
        let byRecipient = Dictionary(fourth[2...].map { (($0["rcptTos"] as? [String])?.first ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        guard let verification = byRecipient[newEmail], let notice = byRecipient[account.email] else {
            return XCTFail("mails went to \(byRecipient.keys.sorted())")
        }
        XCTAssertEqual(notice["subject"] as? String, "Your email address was changed", "the old address hears of the change")
        XCTAssertFalse(notice.plainText.contains("/account/"), "the notice carries no link")
        assertError(try mail.client.request("POST", "/v1/email-verifications/confirm", json: ["token": secondToken]), 400, "invalid_token",
                    "a token for the old address does not verify the new one")
        guard let thirdToken = mail.token(in: verification, path: "/account/verify") else { return }
        assertSuccess(try mail.client.request("POST", "/v1/email-verifications/confirm", json: ["token": thirdToken]), 204)
        XCTAssertEqual(try mail.client.me(account.token).object?["emailVerified"] as? Bool, true)
        assertError(try mail.client.request("POST", "/v1/users/me/email-verification"), 401, "unauthorized")
    }

    /// The reset mail's link opens the server's page in a real headless Chromium, which sets
    /// the new password; the old password and every old session stop working; the link works once.
    func testResetLinkSetsANewPasswordThroughThePageInABrowser() throws {
        let mail = try MailServer(smtp: try SMTPStandIn(), publicURL: nil)
        let account = try mail.client.signup()
        let other = try mail.client.login(account.username, account.password)
        _ = mail.smtp.waitForMessages(1)  // the verification mail

        assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": account.email.uppercased()]), 204)
        let messages = mail.smtp.waitForMessages(2)
        XCTAssertEqual(messages.count, 2, "a reset mail")
        guard messages.count == 2 else { return }
        XCTAssertEqual(messages[1]["subject"] as? String, "Reset your password")
        guard let link = messages[1].link(startingWith: "\(mail.publicURL)/account/reset?token="),
              let token = mail.token(in: messages[1], path: "/account/reset") else { return }

        let newPassword = Fake.password()
        let browser = try Browser.run(["reset_in_browser.py", link, newPassword, "es"])
        XCTAssertEqual(browser["statusClass"] as? String, "ok", "the page says it worked: \(browser)")
        XCTAssertEqual(browser["lang"] as? String, "es", "the page is in the browser's language")
        XCTAssertEqual(browser["title"] as? String, "Elige una contraseña nueva")
        XCTAssertEqual(browser["consoleErrors"] as? [String], [], "no Content-Security-Policy violation nor other error")

        assertError(try mail.client.request("POST", "/v1/sessions", json: ["login": account.username, "password": account.password]),
                    401, "invalid_credentials", "the old password no longer works")
        assertError(try mail.client.me(account.token), 401, "invalid_session", "the first session ended")
        assertError(try mail.client.me(other.token), 401, "invalid_session", "the other session ended")
        XCTAssertEqual(try mail.client.login(account.username, newPassword).user["id"] as? String, account.id, "the new password works")
        assertError(try mail.client.request("POST", "/v1/password-resets/confirm", json: ["token": token, "password": Fake.password()]),
                    400, "invalid_token", "the link works once")
    }

    func testResetPagesAreServedWithAPolicyAndNoInlineScript() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        for path in ["/account/reset?token=abc", "/account/verify?token=abc"] {
            let page = try mail.client.request("GET", path, headers: ["Accept-Language": "fr, es;q=0.8, en;q=0.5"])
            XCTAssertEqual(page.status, 200)
            XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
            let policy = page.headers["content-security-policy"] ?? ""
            XCTAssertTrue(policy.contains("script-src 'self'") && policy.contains("default-src 'none'") && !policy.contains("unsafe-inline"), policy)
            XCTAssertEqual(page.headers["referrer-policy"], "no-referrer", "the token in the address never leaves as a Referer")
            XCTAssertTrue(page.text.contains("<html lang=\"es\">"), "Spanish is the first language it speaks")
            XCTAssertNil(page.text.range(of: "<script>"), "no inline script")
            XCTAssertNil(page.text.range(of: "<style"), "no inline style")
            XCTAssertNil(page.text.range(of: " style="), "no style attribute")
            XCTAssertNil(page.text.range(of: " on[a-z]+=", options: .regularExpression), "no event handler attribute")
        }
        XCTAssertTrue(try mail.client.request("GET", "/account/account.js").headers["content-type"]?.hasPrefix("text/javascript") ?? false)
        XCTAssertTrue(try mail.client.request("GET", "/account/account.css").headers["content-type"]?.hasPrefix("text/css") ?? false)
    }

    /// The same answer for an address without an account, and a mail to it as to an account's
    /// address: one that says no account has it, with no link.
    func testUnknownAddressGetsTheSameAnswerAndAMailSayingItHasNoAccount() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        let account = try mail.client.signup()
        _ = mail.smtp.waitForMessages(1)
        let nobody = "nobody-\(Fake.username())@example.com"
        let unknown = try mail.client.request("POST", "/v1/password-resets", headers: ["Accept-Language": "es"], json: ["email": nobody])
        let known = try mail.client.request("POST", "/v1/password-resets", json: ["email": account.email])
        assertSuccess(unknown, 204)
        assertSuccess(known, 204)
        XCTAssertEqual(unknown.body, known.body)
        let messages = mail.smtp.waitForMessages(3)
        XCTAssertEqual(messages.compactMap { ($0["rcptTos"] as? [String])?.first }, [account.email, nobody, account.email])
        guard messages.count == 3 else { return }
        XCTAssertEqual(messages[1]["subject"] as? String, "Restablece tu contraseña", "in the language the request asked in")
        XCTAssertTrue(messages[1].plainText.contains("ninguna cuenta la tiene"), messages[1].plainText)
        XCTAssertFalse(messages[1].plainText.contains("/account/"), "no link for an address without an account")
        XCTAssertNotNil(mail.token(in: messages[2], path: "/account/reset"), "the account's address gets its link")
        assertError(try mail.client.request("POST", "/v1/password-resets", json: ["email": 42]), 400, "validation_failed", field: "email")
    }

    /// The probe's takeover path: a reset link mailed to the old address, then the owner
    /// changes the email and the password; the link must not set the attacker's password.
    func testAResetLinkDiesWithAnEmailChangeAndAPasswordChange() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        let account = try mail.client.signup()
        _ = mail.smtp.waitForMessages(1)
        assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": account.email]), 204)
        let messages = mail.smtp.waitForMessages(2)
        guard messages.count == 2, let stolen = mail.token(in: messages[1], path: "/account/reset") else { return XCTFail("no reset mail") }

        assertError(try mail.client.request("PATCH", "/v1/users/me", json: ["email": "moved-" + account.email], token: account.token),
                    400, "validation_failed", field: "currentPassword", "a session alone does not change the email")
        assertError(try mail.client.request("PATCH", "/v1/users/me", json: ["email": "moved-" + account.email, "currentPassword": "wrong-password"],
                                            token: account.token), 403, "invalid_credentials")
        assertSuccess(try mail.client.request("PATCH", "/v1/users/me", json: ["email": "moved-" + account.email, "currentPassword": account.password],
                                              token: account.token), 200)
        let ownersPassword = Fake.password()
        assertSuccess(try mail.client.request("PUT", "/v1/users/me/password", json: ["currentPassword": account.password, "newPassword": ownersPassword],
                                              token: account.token), 204)
        let attackers = Fake.password()
        assertError(try mail.client.request("POST", "/v1/password-resets/confirm", json: ["token": stolen, "password": attackers]),
                    400, "invalid_token", "the link mailed to the old address")
        assertError(try mail.client.request("POST", "/v1/sessions", json: ["login": account.username, "password": attackers]),
                    401, "invalid_credentials", "the attacker's password does not log in")
        XCTAssertEqual(try mail.client.login(account.username, ownersPassword).user["id"] as? String, account.id)
    }

    /// Whether an address has an account shows nowhere public: the answer, and every mail and
    /// outbox counter in /metrics, move the same way for both (the mail worker looks the address
    /// up later and mails it either way). Its time is `ResetTimingTests`'.
    func testAResetForAnUnknownAddressMovesTheSameCounters() throws {
        let mail = try MailServer(smtp: try SMTPStandIn())
        let account = try mail.client.signup()
        _ = mail.smtp.waitForMessages(1)
        func mailCounters() throws -> String {
            try mail.client.request("GET", "/metrics").text.split(separator: "\n")
                .filter { $0.hasPrefix("pacenote_mail_") || ($0.hasPrefix("pacenote_outbox_") && $0.contains("mail")) }
                .joined(separator: "\n")
        }
        // The counters count what the worker did; wait for each mail to have gone and its job to
        // be counted done (the worker counts the delivery first, then the job).
        func settled(_ mails: Int) throws -> Bool {
            let counters = try mailCounters()
            let done = difference("", counters).filter { $0.key.hasPrefix("pacenote_outbox_jobs_total") && $0.key.contains("outcome=\"done\"") }
            return counters.contains("result=\"sent\"} \(mails)") && done.values.reduce(0, +) >= Double(mails)
        }
        XCTAssertTrue(try waitUntil { try settled(1) })
        let before = try mailCounters()
        assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": "nobody-\(Fake.username())@example.com"]), 204)
        XCTAssertEqual(mail.smtp.waitForMessages(2).count, 2)
        XCTAssertTrue(try waitUntil { try settled(2) })
        let afterUnknown = try mailCounters()
        assertSuccess(try mail.client.request("POST", "/v1/password-resets", json: ["email": account.email]), 204)
        XCTAssertEqual(mail.smtp.waitForMessages(3).count, 3)
        XCTAssertTrue(try waitUntil { try settled(3) })
        let afterKnown = try mailCounters()
        XCTAssertEqual(difference(before, afterUnknown), difference(afterUnknown, afterKnown), "the same counters moved by the same amounts")
    }

    /// Each counter line's value change from `a` to `b`, by line name.
    private func difference(_ a: String, _ b: String) -> [String: Double] {
        func values(_ text: String) -> [String: Double] {
            Dictionary(text.split(separator: "\n").compactMap { line -> (String, Double)? in
                let parts = line.split(separator: " ")
                guard parts.count == 2, let value = Double(parts[1]) else { return nil }
                return (String(parts[0]), value)
            }, uniquingKeysWith: { x, _ in x })
        }
        let (x, y) = (values(a), values(b))
        return Dictionary(uniqueKeysWithValues: Set(x.keys).union(y.keys).map { ($0, (y[$0] ?? 0) - (x[$0] ?? 0)) })
    }

    /// A mail server down for a few seconds delays the mail; the outbox retries until it is through.
    func testAnOutageDelaysMailWithoutLosingIt() throws {
        let smtp = try SMTPStandIn()
        let mail = try MailServer(smtp: smtp, extra: ["--mail-retry-base", "1s"])
        smtp.stop()
        let account = try mail.client.signup()
        // Retries happen while it is down (the metric says so), then it comes back: after the
        // second failed attempt, so that the outage outlasts a retry.
        let retries = { () throws -> Double in
            let line = try mail.client.request("GET", "/metrics").text.split(separator: "\n")
                .first { $0.hasPrefix("pacenote_mail_deliveries_total{result=\"retry\"} ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        XCTAssertTrue(try waitUntil(timeout: 20, interval: 0.2) { try retries() >= 1 }, "a failed attempt was recorded for a retry")
        XCTAssertTrue(try waitUntil(timeout: 20, interval: 0.2) { try retries() >= 2 }, "the retry failed too, while the server was down")
        try smtp.start()
        let messages = smtp.waitForMessages(1, timeout: 30)
        XCTAssertEqual(messages.count, 1, "the mail arrives once the server is back")
        XCTAssertEqual(messages.first?["rcptTos"] as? [String], [account.email])
    }

    func testSMTPLoginFromTheFlags() throws {
        let smtp = try SMTPStandIn(auth: "mailer:s3cret-pass")
        let mail = try MailServer(smtp: smtp, extra: ["--smtp-user", "mailer", "--smtp-password", "s3cret-pass"])
        let account = try mail.client.signup()
        guard let message = smtp.waitForMessages(1).first else { return XCTFail("no mail through an authenticating server") }
        XCTAssertEqual(message["authenticated"] as? Bool, true)
        XCTAssertEqual(message["login"] as? String, "mailer")
        XCTAssertFalse(mail.server.output.allLines.contains { $0.contains("s3cret-pass") }, "the SMTP password is never logged")
        XCTAssertEqual(message["rcptTos"] as? [String], [account.email])
    }

    /// Without mail: the mail endpoints answer 503, and an operator's reset link works.
    func testWithoutMailTheEndpointsAre503AndAnOperatorResetLinkWorks() throws {
        let server = try TestServer()
        try server.start()
        let client = HTTPClient(port: server.port)
        let account = try client.signup()
        assertError(try client.request("POST", "/v1/password-resets", json: ["email": account.email]), 503, "unavailable")
        assertError(try client.request("POST", "/v1/users/me/email-verification", token: account.token), 503, "unavailable")

        let run = server.runCLI(["user", "reset-link", account.username.uppercased(), "--public-url", "https://pacenote.example/"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let prefix = "https://pacenote.example/account/reset?token="
        XCTAssertTrue(run.stdout.hasPrefix(prefix), run.stdout)
        let token = String(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(prefix.count))
        let newPassword = Fake.password()
        assertError(try client.request("POST", "/v1/password-resets/confirm", json: ["token": token, "password": "short"]),
                    400, "validation_failed", field: "password")
        assertSuccess(try client.request("POST", "/v1/password-resets/confirm", json: ["token": token, "password": newPassword]), 204,
                      "a refused password did not use the token up")
        assertError(try client.me(account.token), 401, "invalid_session")
        XCTAssertEqual(try client.login(account.username, newPassword).user["id"] as? String, account.id)
        XCTAssertNotEqual(server.runCLI(["user", "reset-link", "nobody_\(Fake.username())", "--public-url", "https://x.example"]).status, 0)
    }
}

/// Runs a script of Tests/Support/standins with the tests' Python and reads its JSON line.
enum Browser {
    static func run(_ arguments: [String], timeout: Double = 90) throws -> [String: Any] {
        let python = ProcessInfo.processInfo.environment["PACENOTE_TEST_PYTHON"]
            ?? StandIn.packageRoot.appendingPathComponent(".build/venv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") else {
            throw StandInError(description: "no /usr/bin/chromedriver: scripts/test installs chromium and chromium-driver")
        }
        let script = StandIn.packageRoot.appendingPathComponent("Tests/Support/standins/\(arguments[0])").path
        let run = TestServer.run(binary: python, arguments: [script] + arguments.dropFirst(), timeout: timeout)
        guard run.status == 0, let line = run.stdout.split(separator: "\n").last,
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw StandInError(description: "\(arguments[0]) failed (\(run.status)): \(run.stdout)\n\(run.stderr)")
        }
        return object
    }
}
