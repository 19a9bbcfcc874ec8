import Auth
import SocialAPI

/// `pacenote user create …` and `pacenote user role USERNAME ROLE`.
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
    static let spec = CommandSpec(
        synopsis: "user COMMAND", summary: "Manages accounts.", flags: [], subcommands: [createSpec, roleSpec]
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else { throw Options.UsageError(description: "user needs create or role") }
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
            let application = try Application(configuration: configuration, logger: try CommonOptions.logger(options), openDatabase: try CommonOptions.openDatabase(options))
            defer { application.close() }
            let account = try application.accounts.createAccount(username: username, email: email, password: password, role: role)
            print(account.id)
            return 0
        case "role":
            let options = try Options(rest, spec: roleSpec)
            let configuration = try CommonOptions.configuration(options)
            guard options.positional.count == 2 else { throw Options.UsageError(description: "user role takes USERNAME ROLE") }
            let role = try parseRole(options.positional[1])
            let application = try Application(configuration: configuration, logger: try CommonOptions.logger(options), openDatabase: try CommonOptions.openDatabase(options))
            defer { application.close() }
            // A username only (API.md): an imported id could be spelled like someone else's username.
            let account = try application.accounts.setRole(role, username: options.positional[0])
            print("\(account.username) is now \(account.role.rawValue)")
            return 0
        default:
            throw Options.UsageError(description: "unknown user action \(action)")
        }
    }

    private static func parseRole(_ name: String) throws -> Role {
        guard let role = Role(rawValue: name) else { throw Options.UsageError(description: "a role is user, moderator or admin") }
        return role
    }
}
