import Delivery
import Foundation
import SocialAPI

/// The mail and limit flags of API.md "Command line" (Mail, Limits).
enum MailOptions {
    static let flags: [CommandSpec.Flag] = [
        .init("smtp-url", "URL", "smtp://host:port (STARTTLS required, except to loopback) or smtps://host:port; user and password may be in the URL (no mail without it)"),
        .init("smtp-user", "USER", "SMTP login, if not in the URL"),
        .init("smtp-password", "PASSWORD", "SMTP password, if not in the URL (prefer PACENOTE_SMTP_PASSWORD)"),
        .init("mail-from", "ADDRESS", "the sender of verification and reset mails"),
        .init("mail-retry-base", "DURATION", "wait before the first retry of a failed mail, doubling after each (30s)"),
    ]

    static func service(_ options: Options) throws -> MailService? {
        guard let url = options.string("smtp-url") else {
            for name in ["smtp-user", "smtp-password", "mail-from"] where options.string(name) != nil {
                throw Options.UsageError(description: "--\(name) needs --smtp-url")
            }
            return nil
        }
        guard let from = options.string("mail-from") else { throw Options.UsageError(description: "--smtp-url needs --mail-from") }
        guard let publicURL = try publicURL(options) else {
            throw Options.UsageError(description: "--smtp-url needs --public-url, such as https://pacenote.example.com (the links in mails)")
        }
        let configuration = SMTPConfiguration(url: url, user: options.string("smtp-user"), password: options.string("smtp-password"), from: from)
        do {
            return MailService(client: try SMTPClient(configuration: configuration), publicURL: publicURL)
        } catch let error as MailConfigurationError {
            throw Options.UsageError(description: error.description)
        }
    }

    /// `--public-url`: an http or https URL with a host, the base of mails' links and pictures' URLs.
    static func publicURL(_ options: Options) throws -> String? {
        guard let publicURL = options.string("public-url") else { return nil }
        guard let components = URLComponents(string: publicURL), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
              components.host?.isEmpty == false, components.query == nil, components.fragment == nil else {
            throw Options.UsageError(description: "--public-url is the server's public address, such as https://pacenote.example.com")
        }
        return publicURL
    }
}

enum LimitOptions {
    static let flags: [CommandSpec.Flag] = [
        .init("limit-signups", "N/h", "sign-ups per client address (50/h); N/s, N/m, N/h or off, as every limit"),
        .init("limit-logins", "N/m", "logins per client address, beside the per-name lockout (60/m)"),
        .init("limit-mails", "N/h", "reset and verification mails per email address (5/h)"),
        .init("limit-mails-per-ip", "N/h", "reset and verification mails per client address (50/h)"),
        .init("limit-writes", "N/m", "writes (videos, likes, comments, flags, follows) per user (600/m)"),
        .init("limit-requests", "N/s", "every request per client address (off)"),
        .init("trusted-proxy", "ADDR,...", "proxies whose X-Forwarded-For (last hop) names the client"),
    ]

    static func limits(_ options: Options) throws -> RateLimits {
        var limits = RateLimits()
        let settings: [(String, WritableKeyPath<RateLimits, RateLimit?>)] = [
            ("limit-signups", \.signups), ("limit-logins", \.logins), ("limit-mails", \.mails),
            ("limit-mails-per-ip", \.mailsPerIP), ("limit-writes", \.writes), ("limit-requests", \.requests),
        ]
        for (name, path) in settings {
            guard let text = options.string(name) else { continue }
            do {
                limits[keyPath: path] = try RateLimit.parse(text)
            } catch {
                throw Options.UsageError(description: "--\(name): \(error)")
            }
        }
        if let proxies = options.string("trusted-proxy") {
            limits.trustedProxies = Set(proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        return limits
    }
}
