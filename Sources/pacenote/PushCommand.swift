import SocialAPI

/// `pacenote push test --user U [push settings]`: a test push to each of the user's devices,
/// with each service's answer printed.
enum PushCommand {
    static let testSpec = CommandSpec(
        synopsis: "push test --user USERNAME [push settings as for serve]",
        summary: "Sends a test push to every device of USERNAME now and prints each service's answer; a token the service reports gone is removed.",
        flags: [.init("user", "USERNAME", "whose devices")] + PushOptions.flags + CommonOptions.flags
    )
    static let spec = CommandSpec(synopsis: "push COMMAND", summary: "Checks push delivery.", flags: [], subcommands: [testSpec])

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else { throw Options.UsageError(description: "push needs test") }
        switch action {
        case "--help", "-h":
            throw HelpRequested(spec: spec)
        case "test":
            let options = try Options(Array(arguments.dropFirst()), spec: testSpec)
            guard let username = options.string("user") else { throw Options.UsageError(description: "push test needs --user") }
            var configuration = try CommonOptions.configuration(options)
            configuration.push = try PushOptions.services(options)
            let application = try Application(configuration: configuration, logger: try CommonOptions.logger(options), openDatabase: try CommonOptions.openDatabase(options))
            defer { application.close() }
            let results = try application.sendTestPush(toUsername: username)
            if results.isEmpty { print("\(username) has no registered devices") }
            for result in results {
                print("installation \(result.installationID) (\(result.platform)): \(result.provider.map { "\($0): " } ?? "")\(result.outcome)")
            }
            return results.allSatisfy { $0.outcome == "delivered" } ? 0 : 1
        default:
            throw Options.UsageError(description: "unknown push action \(action)")
        }
    }
}
