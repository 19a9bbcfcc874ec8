
/// `pacenote migrate`: apply pending migrations and exit.
enum MigrateCommand {
    static let spec = CommandSpec(
        synopsis: "migrate [--data-dir ./data]",
        summary: "Applies pending migrations to the database and exits (serve also does this at start).",
        flags: CommonOptions.flags
    )

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try Options(arguments, spec: spec)
        try CommandDatabase.with(options) { _ in }
        return 0
    }
}
