import Auth
import Community
import JSON
import Storage

/// An `_Installation` write's body (PARSE-REST.md §2.2, PFInstallation's save): the fields
/// Pacenote keeps, checked; the ones the SDKs send that it does not keep, dropped; any other 105.
struct InstallationBody {
    let platform: PushPlatform?
    /// Lower-cased for iOS, as parse-server stores APNs tokens.
    let deviceToken: String?
    let locale: String?
    let channels: ChannelEdit?

    init(_ fields: [String: JSONValue], userID: String) throws {
        for name in fields.keys.sorted() where !InstallationRoutes.writable.contains(name) && !InstallationRoutes.dropped.contains(name) {
            if name == "objectId" { throw ParseError(.invalidKeyName, "objectId is an invalid field name.") }
            do { try ParseQuery.checkKeyName(name) } catch { throw ParseErrors.map(error) }
            throw ParseError(.invalidKeyName, "_Installation has no field \(name) this server writes.")
        }
        if let id = fields["installationId"], id.stringValue == nil { throw Self.mismatch("installationId", "String", id) }
        if let user = fields["user"] {
            guard user["__type"]?.stringValue == "Pointer", user["className"]?.stringValue == "_User", let id = user["objectId"]?.stringValue else {
                throw Self.mismatch("user", "Pointer<_User>", user)
            }
            guard id == userID else { throw ParseError(.operationForbidden, "An installation's user must be the signed-in user.") }
        }
        switch fields["deviceType"] {
        case nil: platform = nil
        case .string(let name)?:
            guard let known = PushPlatform(rawValue: name) else {
                throw ParseError(.validationError, "deviceType must be ios or android on this server.")
            }
            platform = known
        case let value?: throw Self.mismatch("deviceType", "String", value)
        }
        switch fields["deviceToken"] {
        case nil: deviceToken = nil
        case .string(let token)?: deviceToken = try Self.checkToken(token, platform: platform)
        case let value?: throw Self.mismatch("deviceToken", "String", value)
        }
        switch fields["localeIdentifier"] {
        case nil: locale = nil
        case .string(let text)?:
            // iOS sends `en-US`, Android `en_US`: both are BCP 47-shaped enough for Pacenote's locale.
            guard Self.isLocale(text) else { throw ParseError(.validationError, "localeIdentifier is a language tag such as en, es or es-ES.") }
            locale = text
        case let value?: throw Self.mismatch("localeIdentifier", "String", value)
        }
        channels = try fields["channels"].map(ChannelEdit.init)
    }

    /// An APNs token is hexadecimal (the iOS SDK sends the 32 bytes as 64 hex digits): anything
    /// else is refused with 142 rather than stored and failed on at the first push. An FCM token
    /// takes `/v1`'s alphabet. Both within `Installations.tokenLength`.
    static func checkToken(_ token: String, platform: PushPlatform?) throws -> String {
        guard Installations.tokenLength.contains(token.utf8.count) else {
            throw ParseError(.validationError, "deviceToken is the token the platform gave the app (16 to 4096 characters).")
        }
        let isHex: (UInt8) -> Bool = { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }
        let isTokenByte: (UInt8) -> Bool = { byte in
            isHex(byte) || (65...90).contains(byte) || (97...122).contains(byte) || [45, 95, 46, 58].contains(byte)
        }
        if platform == .ios || platform == nil && token.utf8.allSatisfy(isHex) {
            guard token.utf8.allSatisfy(isHex) else { throw ParseError(.validationError, "deviceToken for ios must be hexadecimal.") }
            return token.lowercased()
        }
        guard token.utf8.allSatisfy(isTokenByte) else {
            throw ParseError(.validationError, "deviceToken is the token the platform gave the app: letters, digits and -_.:")
        }
        return token
    }

    static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard Installations.localeLength.contains(text.utf8.count), let language = parts.first,
              (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    static func mismatch(_ name: String, _ expected: String, _ value: JSONValue) -> ParseError {
        ParseError(.incorrectType, "schema mismatch for _Installation.\(name); expected \(expected)")
    }
}
