import Auth
import Community
import Delivery
import Storage

/// `pacenote push test --user U`: a push straight to each of a user's devices, with each
/// service's answer, so an operator can check keys, topics and tokens without waiting for
/// someone to like something.
public struct TestPushResult: Sendable {
    public let installationID: String
    public let platform: String
    /// The service that answered; nil when the platform has no settings.
    public let provider: String?
    public let outcome: String
}

extension Application {
    /// Sends a test push to every device of `username`; a token the service reports gone is
    /// removed, as a real push would. Throws `notFound` when there is no such user.
    public func sendTestPush(toUsername username: String) throws -> [TestPushResult] {
        guard let account = try accounts.account(idOrUsername: username) else { throw AuthError.notFound }
        var results: [TestPushResult] = []
        for installation in try installations.all(userID: account.id) {
            let message = PushMessage(
                id: PushDispatcher.messageID("test", installation.id, String(clock.nowMillis())), platform: installation.platform,
                deviceToken: installation.deviceToken, title: "Pacenote",
                body: PushText.test(locale: installation.locale),
                data: ["kind": "test"])
            guard let provider = configuration.push.providers[installation.platform] else {
                results.append(TestPushResult(installationID: installation.id, platform: installation.platform.rawValue, provider: nil,
                                              outcome: "not sent: no \(installation.platform.rawValue) settings"))
                continue
            }
            let outcome = provider.send([message]).first ?? .noAnswer
            if outcome == .tokenGone { try database.write { try Installations.forget(id: installation.id, on: $0) } }
            results.append(TestPushResult(installationID: installation.id, platform: installation.platform.rawValue,
                                          provider: provider.name, outcome: Self.describe(outcome)))
        }
        return results
    }

    private static func describe(_ outcome: PushOutcome) -> String {
        switch outcome {
        case .delivered: return "delivered"
        case .tokenGone: return "token gone: installation removed"
        case .retry(let seconds, let reason): return "not delivered, retryable: \(reason)" + (seconds.map { " (Retry-After \($0) s)" } ?? "")
        case .failed(let reason): return "refused: \(reason)"
        }
    }
}
