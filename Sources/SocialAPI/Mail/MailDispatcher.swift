import Auth
import CloudHooks
import JSON
import Storage
import Telemetry

/// The mail settings `serve` was given (API.md "Command line": Mail).
public struct MailService: Sendable {
    public let client: SMTPClient
    /// The base of the links in mails (`--public-url`), without a trailing slash.
    public let publicURL: String

    public init(client: SMTPClient, publicURL: String) {
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        self.client = client
        self.publicURL = base
    }

    /// The page a mail's link opens (API.md: `/account/verify?token=`, `/account/reset?token=`).
    func link(_ purpose: AccountTokenPurpose, token: String) -> String {
        // Tokens are base64url: nothing in them needs escaping in a query.
        switch purpose {
        case .verifyEmail: "\(publicURL)/account/verify?token=\(token)"
        case .resetPassword: "\(publicURL)/account/reset?token=\(token)"
        }
    }
}

/// Delivers the `mail` lane's jobs (queued with the tokens they carry, `Accounts+Recovery`);
/// the `DeliveryWorker` around it leases, retries with backoff and records, as for pushes.
///
/// Each job names an account and a nonce; the token is rebuilt from the nonce here, and the
/// mail is sent only while that token is still the account's live one (a newer request, a
/// use or an expiry makes it moot: `skipped`). The Message-ID comes from the job, so a retry
/// after a lost answer carries the same one.
struct MailDispatcher: Sendable {
    static let kind = "mail.account"

    let database: any Database
    let accounts: Accounts
    let service: MailService
    let clock: any Clock
    let metrics: MetricsRegistry

    /// The outbox payload of a mail: the account and the nonce, never the token.
    static func enqueue(_ mail: AccountMail, now: Int64, on connection: any DatabaseConnection) throws {
        let payload = JobInput.encode([
            "purpose": .string(mail.purpose.rawValue), "userId": .string(mail.userID), "nonce": .string(mail.nonce),
        ])
        try Outbox().enqueue(kind: kind, payload: payload, lane: .mail, now: now, on: connection)
    }

    func deliver(_ jobs: [OutboxJob]) -> [DeliveryResult] {
        jobs.map { job in
            let result = deliver(job)
            let name = switch result {
            case .delivered: "sent"
            case .skipped: "skipped"
            case .retry: "retry"
            case .failed: "failed"
            }
            metrics.counter("pacenote_mail_deliveries_total", help: "Mail delivery attempts, by result.", labels: [("result", name)]).increment()
            return result
        }
    }

    private func deliver(_ job: OutboxJob) -> DeliveryResult {
        let mail: AccountMail
        do {
            let input = try JobInput(job)
            guard let purpose = AccountTokenPurpose(rawValue: try input.string("purpose")) else { return .failed("unknown purpose") }
            mail = AccountMail(purpose: purpose, userID: try input.string("userId"), nonce: try input.string("nonce"))
        } catch {
            return .failed("malformed payload: \(error)")
        }
        let found: (Account?, Bool)
        do {
            found = try database.read { connection in
                (try AccountStore().find(id: mail.userID, on: connection), try accounts.isLive(mail, on: connection))
            }
        } catch {
            return .retry("database: \(error)")
        }
        guard let account = found.0 else { return .skipped("account deleted") }
        guard found.1 else { return .skipped("token replaced, used or expired") }
        let words = AccountMailText(purpose: mail.purpose, locale: account.locale, username: account.username,
                                    link: service.link(mail.purpose, token: accounts.token(for: mail)))
        let domain = service.client.configuration.from.split(separator: "@").last.map(String.init) ?? "pacenote"
        let message = MailMessage(
            from: service.client.configuration.from, to: account.email, subject: words.subject, text: words.text, html: words.html,
            messageID: "<\(mail.purpose.rawValue).\(job.seq).\(mail.nonce.prefix(8))@\(domain)>", dateMillis: clock.nowMillis())
        switch service.client.send(message) {
        case .sent: return .delivered
        case .retry(let reason): return .retry(reason)
        case .refused(let reason): return .failed(reason)
        }
    }
}
