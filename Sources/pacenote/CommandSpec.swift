/// What one command accepts, declared once: `Options` parses exactly these flags and `--help`
/// prints them, so the help can never leave out an option the command takes.
struct CommandSpec: Sendable {
    struct Flag: Sendable {
        let name: String
        /// The value's placeholder (`N`, `15m`); nil for a switch given bare (`--public-read`).
        let value: String?
        /// What it does, with its default in parentheses.
        let help: String

        init(_ name: String, _ value: String?, _ help: String) {
            self.name = name
            self.value = value
            self.help = help
        }
    }

    /// How the command is called, after `pacenote ` (`user role USERNAME ROLE`).
    let synopsis: String
    /// One or two sentences on what it does.
    let summary: String
    let flags: [Flag]
    /// Subcommands, for a command that only groups others (`user`).
    var subcommands: [CommandSpec] = []

    var help: String {
        var lines = ["usage: pacenote \(synopsis)", "", summary]
        if !subcommands.isEmpty {
            lines += ["", "commands:"] + subcommands.map { "  pacenote \($0.synopsis)" }
            lines += ["", "`pacenote \(synopsis.split(separator: " ")[0]) COMMAND --help` describes each."]
        }
        let rows = flags.map { ("--\($0.name)" + ($0.value.map { " \($0)" } ?? ""), $0.help) } + [("--help", "this help")]
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        lines += ["", "options (each also read from PACENOTE_<OPTION>, e.g. --data-dir from PACENOTE_DATA_DIR):"]
        lines += rows.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }
        return lines.joined(separator: "\n")
    }

    /// The flags that take a value, and the bare switches, as `Options` parses them.
    var valueFlags: Set<String> { Set(flags.filter { $0.value != nil }.map(\.name)) }
    var switches: Set<String> { Set(flags.filter { $0.value == nil }.map(\.name)) }
}

/// Thrown by `Options` when the command line asks for `--help` or `-h`: the command's help goes
/// to stdout and the process exits 0, whatever else the line holds.
struct HelpRequested: Error {
    let spec: CommandSpec
}
