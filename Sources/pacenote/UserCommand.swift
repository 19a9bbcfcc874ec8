import Auth
import SocialAPI
import Telemetry

#if canImport(Glibc)
import Glibc
#endif

/// `pacenote user create …`, `pacenote user role USERNAME ROLE`, `pacenote user reset-link USERNAME`
/// and `pacenote user export USERNAME`.
enum UserCommand {
    static let createSpec = CommandSpec(
        synopsis: "user create --username U --email E --password P [--role user|moderator|admin]",
        summary: "Creates an account and prints its id.",
        flags: [
            .init("username", "U", "3 to 30 of A-Z a-z 0-9 _ ."),
            .init("email", "E", "the account's email address"),
            .init("password", "P", "8 to 72 bytes"),
            .init("role", "ROLE", "user, moderator or admin (user)"),
            .init("bcrypt-cost", "N", "bcrypt cost of the hash (10)"),
        ] + CommonOptions.flags
    )
    static let roleSpec = CommandSpec(
        synopsis: "user role USERNAME ROLE",
        summary: "Changes an account's role (user, moderator or admin); open sessions get it at once.",
        flags: CommonOptions.flags
    )
    static let resetLinkSpec = CommandSpec(
        synopsis: "user reset-link USERNAME --public-url URL",
        summary: "Prints a password-reset link (valid one hour, once) for an operator to pass on, for servers without mail. "
            + "It replaces any earlier reset link of the account.",
        flags: [.init("public-url", "URL", "the server's public address, such as https://pacenote.example.com")] + CommonOptions.flags
    )
    static let exportSpec = CommandSpec(
        synopsis: "user export USERNAME [--public-url URL]",
        summary: "Writes the account's personal data to standard output as JSON, as GET /v1/users/me/export does "
            + "(also for a banned account, and without its one-a-day limit), streamed a page at a time.",
        flags: [.init("public-url", "URL", "the base of pictures' URLs, as serve --public-url makes them (paths without it)")] + CommonOptions.flags
    )
    static let spec = CommandSpec(
        synopsis: "user COMMAND", summary: "Manages accounts.", flags: [], subcommands: [createSpec, roleSpec, resetLinkSpec, exportSpec]
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else { throw Options.UsageError(description: "user needs create, role, reset-link or export") }
        let rest = Array(arguments.dropFirst())
        switch action {
        case "--help", "-h":
            throw HelpRequested(spec: spec)
        case "create":
            let options = try Options(rest, spec: createSpec)
            var configuration = try CommonOptions.configuration(options)
            configuration.accounts.bcryptCost = try options.int("bcrypt-cost", default: 10, range: 4...31)
            guard let username = options.string("username"), let email = options.string("email"), let password = options.string("password") else {
                throw Options.UsageError(description: "user create needs --username, --email and --password")
            }
            let role = try parseRole(options.string("role", default: "user"))
            let account = try CommandDatabase.with(options) { database in
                try Accounts(database: database, configuration: configuration.accounts).createAccount(
                    username: username, email: email, password: password, role: role)
            }
            print(account.id)
            return 0
        case "role":
            let options = try Options(rest, spec: roleSpec)
            let configuration = try CommonOptions.configuration(options)
            guard options.positional.count == 2 else { throw Options.UsageError(description: "user role takes USERNAME ROLE") }
            let role = try parseRole(options.positional[1])
            // A username only (API.md): an imported id could be spelled like someone else's username.
            let account = try CommandDatabase.with(options) { database in
                try Accounts(database: database, configuration: configuration.accounts).setRole(role, username: options.positional[0])
            }
            print("\(account.username) is now \(account.role.rawValue)")
            return 0
        case "reset-link":
            let options = try Options(rest, spec: resetLinkSpec)
            let configuration = try CommonOptions.configuration(options)
            guard options.positional.count == 1 else { throw Options.UsageError(description: "user reset-link takes USERNAME") }
            guard let publicURL = options.string("public-url") else {
                throw Options.UsageError(description: "user reset-link needs --public-url (or PACENOTE_PUBLIC_URL), the base of the link")
            }
            let application = try Application(configuration: configuration, logger: try CommonOptions.logger(options), openDatabase: try CommonOptions.openDatabase(options))
            defer { application.close() }
            print(try application.resetLink(username: options.positional[0], publicURL: publicURL))
            return 0
        case "export":
            let options = try Options(rest, spec: exportSpec)
            guard options.positional.count == 1 else { throw Options.UsageError(description: "user export takes USERNAME") }
            let publicURL = try MailOptions.publicURL(options)
            return try CommandDatabase.with(options) { database in
                guard var export = try AccountExport.ofUser(username: options.positional[0], database: database, now: SystemClock().nowMillis(),
                                                             publicURL: publicURL) else {
                    FileOutput.standardError("no account has the username \(options.positional[0])\n")
                    return 1
                }
                try export.write { part in try FileOutput.standardOutput(part) }
                return 0
            }
        default:
            throw Options.UsageError(description: "unknown user action \(action)")
        }
    }

    private static func parseRole(_ name: String) throws -> Role {
        guard let role = Role(rawValue: name) else { throw Options.UsageError(description: "a role is user, moderator or admin") }
        return role
    }
}

/// Writes to the process's standard streams with write(2), whole: the export goes out part by
/// part, never gathered in memory (print would buffer it in Foundation's stdout as well).
enum FileOutput {
    struct WriteFailed: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { "cannot write to standard output (errno \(errno))" }
    }

    static func standardOutput(_ bytes: [UInt8]) throws {
        try write(bytes, to: STDOUT_FILENO)
    }

    static func standardError(_ text: String) {
        try? write(Array(text.utf8), to: STDERR_FILENO)
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteFailed(errno: errno)
            }
            offset += written
        }
    }
}
