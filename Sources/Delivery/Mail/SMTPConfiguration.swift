/// Where and how mail is sent (API.md "Command line": Mail).
public struct SMTPConfiguration: Sendable {
    /// `smtp://host:port` (STARTTLS, see `SMTPClient`) or `smtps://host:port` (implicit TLS);
    /// user and password may be in the URL.
    public var url: String
    public var user: String?
    public var password: String?
    /// The envelope sender and the `From:` header.
    public var from: String
    /// A whole SMTP exchange (connect, TLS, auth, data) must end within this.
    public var timeoutMillis: Int = 30_000

    public init(url: String, user: String? = nil, password: String? = nil, from: String) {
        self.url = url
        self.user = user
        self.password = password
        self.from = from
    }
}

/// Why `serve` refused the mail settings; the text names the setting, never a password.
public struct MailConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
