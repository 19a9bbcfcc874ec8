import Auth
import CloudHooks
import JSON
import Storage

/// What one job of the mail lane asks for, as its payload says.
package enum AccountMailJob: OutboxJobKind, Equatable {
    /// The outbox kind of every job of the mail lane.
    package static let kind = "mail.account"
    package static let lane = OutboxLane.mail

    case token(AccountMail)
    case resetRequest(PasswordResetRequest)
    case emailChanged(userID: String, oldEmail: String)
    /// A provider was linked to the account: its address is told (API.md).
    case identityLinked(userID: String, provider: IdentityProvider)

    private static let resetRequestPurpose = "reset_request"
    private static let emailChangedPurpose = "email_changed"
    private static let identityLinkedPurpose = "identity_linked"

    // The payload is never a token: a token mail carries its nonce, and the dispatcher
    // rebuilds the token from it.
    package var payload: [String: JSONValue] {
        switch self {
        case .token(let mail):
            ["purpose": .string(mail.purpose.rawValue), "userId": .string(mail.userID), "nonce": .string(mail.nonce)]
        case .resetRequest(let request):
            ["purpose": .string(Self.resetRequestPurpose), "email": .string(request.email), "locale": .string(request.locale.rawValue),
             "nonce": .string(request.nonce)]
        case .emailChanged(let userID, let oldEmail):
            ["purpose": .string(Self.emailChangedPurpose), "userId": .string(userID), "to": .string(oldEmail)]
        case .identityLinked(let userID, let provider):
            ["purpose": .string(Self.identityLinkedPurpose), "userId": .string(userID), "provider": .string(provider.rawValue)]
        }
    }

    package init(_ input: JobInput) throws {
        let purpose = try input.string("purpose")
        switch purpose {
        case Self.resetRequestPurpose:
            let locale = AccountLocale(rawValue: try input.string("locale")) ?? .english
            self = .resetRequest(PasswordResetRequest(email: try input.string("email"), locale: locale, nonce: try input.string("nonce")))
        case Self.emailChangedPurpose:
            self = .emailChanged(userID: try input.string("userId"), oldEmail: try input.string("to"))
        case Self.identityLinkedPurpose:
            let name = try input.string("provider")
            guard let provider = IdentityProvider(rawValue: name) else { throw AccountMailJobError(purpose: "\(purpose) (provider \(name))") }
            self = .identityLinked(userID: try input.string("userId"), provider: provider)
        default:
            guard let token = AccountTokenPurpose(rawValue: purpose) else { throw AccountMailJobError(purpose: purpose) }
            self = .token(AccountMail(purpose: token, userID: try input.string("userId"), nonce: try input.string("nonce")))
        }
    }
}

package struct AccountMailJobError: Error, CustomStringConvertible {
    package let purpose: String
    package var description: String { "unknown purpose \(purpose)" }
}
