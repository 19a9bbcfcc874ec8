import SocialAPI

/// `pacenote migrate`: apply pending migrations and exit.
enum MigrateCommand {
    static let spec = CommandSpec(
        synopsis: "migrate [--data-dir ./data]",
        summary: "Applies pending migrations to the database and exits (serve also does this at start).",
        flags: CommonOptions.flags
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, spec: spec)
        let application = try Application(configuration: try CommonOptions.configuration(options), logger: try CommonOptions.logger(options), openDatabase: try CommonOptions.openDatabase(options))
        application.close()
        return 0
    }
}
