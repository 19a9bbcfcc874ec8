import Auth
import JSON

/// A sign-in identity kept from a `_User`'s `authData`: an `identities` row linking the
/// provider's id for the person to the imported account, dated as the account.
struct ImportedIdentity: Equatable {
    var provider: IdentityProvider
    /// The provider's user id: 1 to `maximumSubjectLength` ASCII digits.
    var subject: String
    var userID: String
    var createdAt: Int64

    /// Imported links count as vouched (`identities.vouched`): Parse made them before this
    /// server existed, so nobody could pre-hijack them here, and a 2014 user's reset must not
    /// take away the Facebook sign-in they came back with. (The PostgreSQL backend writes the
    /// same `TRUE` in its statement.)
    static let vouched = true
}

/// `_User.authData` -> `identities` (API.md: a Facebook or Twitter id kept from a Parse export
/// signs into the imported account).
///
/// Parse stored `{"facebook": {"id": …, "access_token": …, "expiration_date": …}, "twitter":
/// {"id": …, "screen_name": …, "auth_token": …, "auth_token_secret": …, …}, "anonymous": {"id":
/// …}}`. Only `facebook.id` and `twitter.id` are kept: a string, or a JSON integer written as its
/// decimal digits, trimmed, 1 to 255 ASCII digits (both providers' user ids are numbers; anything
/// else is refused with a note). A provider set to null is one the user unlinked: nothing, no
/// note. Other providers are ignored with a note; malformed `authData` gets a note and the user
/// is imported without it.
///
/// Tokens and secrets are never read: no note quotes a value of `authData`, only the provider
/// names (escaped, see `ParseFields.reportable`), so a token can reach neither the report nor
/// the log.
enum AuthDataMapper {
    /// The schema's bound on `identities.subject`.
    static let maximumSubjectLength = 255

    /// The providers kept, as `authData` names them.
    static let kept: [String: IdentityProvider] = ["facebook": .facebook, "twitter": .twitter]

    /// The identities of one user, with the notes for the report.
    static func identities(_ fields: ParseFields, userID: String, createdAt: Int64) -> (identities: [ImportedIdentity], notes: [String]) {
        let providers: [String: JSONValue]
        switch fields.members["authData"] {
        case nil, .null?:
            return ([], [])
        case .object(let members)?:
            providers = members
        default:
            return ([], ["authData is not an object; no sign-in identity kept"])
        }
        var identities: [ImportedIdentity] = []
        var notes: [String] = []
        // Sorted: the same notes, in the same order, whatever the order of the keys in the file.
        for name in providers.keys.sorted() {
            let value = providers[name]!
            if case .null = value { continue }
            guard let provider = kept[name] else {
                notes.append("authData.\(ParseFields.reportable(name)) ignored (only facebook and twitter ids are kept)")
                continue
            }
            guard case .object(let members) = value, let id = members["id"] else {
                notes.append("authData.\(name) has no id; not kept")
                continue
            }
            let subject: String
            switch id {
            case .string(let text): subject = TextRules.trimmed(text)
            case .int(let number): subject = String(number)
            default:
                notes.append("authData.\(name).id is not a string or an integer; not kept")
                continue
            }
            guard isProviderUserID(subject) else {
                notes.append("authData.\(name).id is not a \(displayName(provider)) user id (1 to \(maximumSubjectLength) digits); not kept")
                continue
            }
            identities.append(ImportedIdentity(provider: provider, subject: subject, userID: userID, createdAt: createdAt))
        }
        return (identities, notes)
    }

    /// 1 to 255 ASCII digits: a Facebook or Twitter user id.
    static func isProviderUserID(_ text: String) -> Bool {
        let bytes = text.utf8
        return (1...maximumSubjectLength).contains(bytes.count) && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    static func displayName(_ provider: IdentityProvider) -> String {
        switch provider {
        case .apple: return "Apple"
        case .google: return "Google"
        case .facebook: return "Facebook"
        case .twitter: return "Twitter"
        }
    }
}
