import Auth
import SocialAPI

/// `pacenote user create …` and `pacenote user role USERNAME ROLE`.
enum UserCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else { throw Options.UsageError(description: "user needs create or role") }
        let options = try Options(
            Array(arguments.dropFirst()),
            flags: CommonOptions.flags.union(["username", "email", "password", "role", "bcrypt-cost"])
        )
        var configuration = try CommonOptions.configuration(options)
        configuration.accounts.bcryptCost = try options.int("bcrypt-cost", default: 10, range: 4...31)
        switch action {
        case "create":
            guard let username = options.string("username"), let email = options.string("email"), let password = options.string("password") else {
                throw Options.UsageError(description: "user create needs --username, --email and --password")
            }
            let role = try role(options.string("role", default: "user"))
            let application = try Application(configuration: configuration, logger: try CommonOptions.logger(options))
            defer { application.close() }
            let account = try application.accounts.createAccount(username: username, email: email, password: password, role: role)
            print(account.id)
            return 0
        case "role":
            guard options.positional.count == 2 else { throw Options.UsageError(description: "user role takes USERNAME ROLE") }
            let role = try role(options.positional[1])
            let application = try Application(configuration: configuration, logger: try CommonOptions.logger(options))
            defer { application.close() }
            // A username only (API.md): an imported id could be spelled like someone else's username.
            let account = try application.accounts.setRole(role, username: options.positional[0])
            print("\(account.username) is now \(account.role.rawValue)")
            return 0
        default:
            throw Options.UsageError(description: "unknown user action \(action)")
        }
    }

    private static func role(_ name: String) throws -> Role {
        guard let role = Role(rawValue: name) else { throw Options.UsageError(description: "a role is user, moderator or admin") }
        return role
    }
}
