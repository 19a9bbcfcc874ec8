import Auth
import Community
import Delivery
import HTTP
import Storage
import Telemetry

/// Where the routes queue account mails: the `mail` outbox lane when mail is configured.
/// Without mail, sign-up and email changes queue nothing, and the mail endpoints answer
/// 503 `unavailable` (API.md).
struct MailQueue: Sendable {
    let service: MailService?
    let accounts: Accounts
    let clock: any WallClock

    /// 503 `unavailable` when no mail is configured: the server's state, not the client's doing.
    static let unavailable = APIError(status: 503, code: "unavailable",
                                      message: "This server does not send mail; ask its operator for a reset link.")

    func requireConfigured() throws(APIError) {
        guard service != nil else { throw Self.unavailable }
    }

    /// Queues a verification mail for the account's current address, inside the caller's write.
    func verify(_ account: Account, on connection: any DatabaseConnection) throws {
        guard service != nil else { return }
        try accounts.issueEmailVerification(for: account, on: connection, enqueue: enqueue)
    }

    /// Queues the notice to the address the account had before an email change.
    func noticeEmailChanged(_ account: Account, oldEmail: String, on connection: any DatabaseConnection) throws {
        guard service != nil else { return }
        try AccountMailJob.emailChanged(userID: account.id, oldEmail: oldEmail).enqueue(now: clock.nowMillis(), on: connection)
    }

    /// Queues the notice that a provider was linked, to the account's address when it has one
    /// (API.md): if the owner did not do it, they learn before the provider is used.
    func noticeIdentityLinked(_ account: Account, provider: IdentityProvider, on connection: any DatabaseConnection) throws {
        guard service != nil, account.hasMailbox else { return }
        try AccountMailJob.identityLinked(userID: account.id, provider: provider).enqueue(now: clock.nowMillis(), on: connection)
    }

    /// The `enqueue`s the recovery calls take.
    func enqueue(_ mail: AccountMail, on connection: any DatabaseConnection) throws {
        try AccountMailJob.token(mail).enqueue(now: clock.nowMillis(), on: connection)
    }

    func enqueue(_ request: PasswordResetRequest, on connection: any DatabaseConnection) throws {
        try AccountMailJob.resetRequest(request).enqueue(now: clock.nowMillis(), on: connection)
    }
}
