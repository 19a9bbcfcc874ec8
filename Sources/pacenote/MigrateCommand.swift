import SocialAPI

/// `pacenote migrate`: apply pending migrations and exit.
enum MigrateCommand {
    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, flags: CommonOptions.flags)
        let application = try Application(configuration: try CommonOptions.configuration(options), logger: try CommonOptions.logger(options))
        application.close()
        return 0
    }
}
