/// The account input rules of API.md, in one place.
public enum Validation {
    static let usernameLength = 3...30
    static let passwordBytes = 8...72
    static let displayNameRule = TextRule("A display name", characters: 1...100)
    /// RFC 5321 allows 254 octets in an address; counted as characters (and scalars) by the shared rule.
    static let emailRule = TextRule("An email address", characters: 1...254)

    static func username(_ value: String, field: String = "username") throws(AuthError) -> String {
        let allowed = value.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2E
        }
        guard allowed, usernameLength.contains(value.utf8.count) else {
            throw .validation(field: field, message: "A username is 3 to 30 letters, digits, '_' or '.'.")
        }
        return value
    }

    /// bcrypt reads at most 72 bytes, so longer passwords are refused rather than silently cut.
    static func password(_ value: String, field: String = "password") throws(AuthError) -> String {
        guard passwordBytes.contains(value.utf8.count) else {
            throw .validation(field: field, message: "A password is 8 to 72 bytes long.")
        }
        guard !value.utf8.contains(0) else {
            throw .validation(field: field, message: "A password cannot contain a NUL character.")
        }
        return value
    }

    /// A deliberately plain shape check: one '@', a non-empty local part, a dotted domain,
    /// no spaces or control characters. Deliverability is the mail server's business.
    static func email(_ value: String, field: String = "email") throws(AuthError) -> String {
        let invalid = AuthError.validation(field: field, message: "That is not an email address.")
        guard case .success = emailRule.check(value),
              !value.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { throw invalid }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { throw invalid }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }) else { throw invalid }
        return value
    }

    /// Display names are stored trimmed; lengths count Unicode characters (`TextRule`).
    static func displayName(_ value: String, field: String = "displayName") throws(AuthError) -> String {
        try displayNameRule.validated(value) { AuthError.validation(field: field, message: $0) }
    }

    /// The key that makes usernames and emails unique case-insensitively.
    public static func key(_ value: String) -> String { value.lowercased() }

    /// True when `value` passes the username rule (bulk importers check without throwing).
    public static func isValidUsername(_ value: String) -> Bool { (try? username(value)) != nil }

    /// True when `value` has the shape of an email address (see `email(_:field:)`).
    public static func isValidEmail(_ value: String) -> Bool { (try? email(value)) != nil }
}
