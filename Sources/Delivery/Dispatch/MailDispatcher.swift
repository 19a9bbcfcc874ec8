import Auth
import Community
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
    package func link(_ purpose: AccountTokenPurpose, token: String) -> String {
        // Tokens are base64url: nothing in them needs escaping in a query.
        switch purpose {
        case .verifyEmail: "\(publicURL)/account/verify?token=\(token)"
        case .resetPassword: "\(publicURL)/account/reset?token=\(token)"
        }
    }
}

/// Delivers the `mail` lane's jobs; the `DeliveryWorker` around it leases, retries with backoff
/// and records, as for pushes. Three kinds of job (`AccountMailJob`):
/// - a token mail (verification): an account and a nonce; the token is rebuilt from the nonce
///   here, and the mail is sent only while that token is still the account's live one (a newer
///   request, a use or an expiry makes it moot: `skipped`);
/// - a reset request: an address and a nonce, queued the same way whether or not an account
///   has the address; here the account is looked up and its token made
///   (`Accounts.issuePasswordReset`), so the request path does the same work either way, and
///   an address without an account is mailed that it has none;
/// - the notice to the old address after an email change.
/// The Message-ID comes from the job, so a retry after a lost answer carries the same one.
package struct MailDispatcher: Sendable {
    package let database: any Database
    package let accounts: Accounts
    package let service: MailService
    package let clock: any WallClock
    package let metrics: MetricsRegistry

    package init(database: any Database, accounts: Accounts, service: MailService, clock: any WallClock, metrics: MetricsRegistry) {
        self.database = database
        self.accounts = accounts
        self.service = service
        self.clock = clock
        self.metrics = metrics
    }

    package func deliver(_ jobs: [OutboxJob]) -> [DeliveryResult] {
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
        let parsed: AccountMailJob
        do {
            parsed = try AccountMailJob(JobInput(job))
        } catch {
            return .failed("malformed payload: \(error)")
        }
        switch parsed {
        case .token(let mail):
            return deliverToken(mail, job: job)
        case .resetRequest(let request):
            let mail: AccountMail?
            do {
                mail = try accounts.issuePasswordReset(request)
            } catch {
                return .retry("database: \(error)")
            }
            guard let mail else {
                // The address gets a mail either way: the same sending, the same counters in
                // /metrics, and its owner learns why no link came (API.md: whether an address
                // has an account shows nowhere, /metrics included).
                return send(.noAccount(locale: request.locale), to: request.email, messageID: "reset_request.\(job.seq)")
            }
            return deliverToken(mail, job: job)
        case .emailChanged(let userID, let oldEmail):
            return withAccount(userID) { account in
                send(.emailChanged(locale: account.locale, username: account.username), to: oldEmail, messageID: "email_changed.\(job.seq)")
            }
        case .identityLinked(let userID, let provider):
            return withAccount(userID) { account in
                guard account.hasMailbox else { return .skipped("no address") }
                let words = AccountMailText.identityLinked(locale: account.locale, username: account.username, provider: provider.displayName)
                return send(words, to: account.email, messageID: "identity_linked.\(job.seq)")
            }
        }
    }

    /// Runs `deliver` with the account, read now: a deleted one is skipped, a database failure retried.
    private func withAccount(_ userID: String, _ deliver: (Account) -> DeliveryResult) -> DeliveryResult {
        let account: Account?
        do {
            account = try database.read { connection in try AccountStore().find(id: userID, on: connection) }
        } catch {
            return .retry("database: \(error)")
        }
        guard let account else { return .skipped("account deleted") }
        return deliver(account)
    }

    private func deliverToken(_ mail: AccountMail, job: OutboxJob) -> DeliveryResult {
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
        return send(words, to: account.email, messageID: "\(mail.purpose.rawValue).\(job.seq).\(mail.nonce.prefix(8))")
    }

    private func send(_ words: AccountMailText, to address: String, messageID: String) -> DeliveryResult {
        let domain = service.client.configuration.from.split(separator: "@").last.map(String.init) ?? "pacenote"
        let message = MailMessage(
            from: service.client.configuration.from, to: address, subject: words.subject, text: words.text, html: words.html,
            messageID: "<\(messageID)@\(domain)>", dateMillis: clock.nowMillis())
        switch service.client.send(message) {
        case .sent: return .delivered
        case .retry(let reason): return .retry(reason)
        case .refused(let reason): return .failed(reason)
        }
    }
}
