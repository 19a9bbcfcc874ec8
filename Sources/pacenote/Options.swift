import Foundation

/// A command line's flags, each also read from `PACENOTE_<FLAG>` in the environment
/// (`--data-dir` <- `PACENOTE_DATA_DIR`); a flag given on the command line wins.
struct Options {
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    private var values: [String: String] = [:]
    private(set) var positional: [String] = []

    /// Parses `--name value`, `--name=value` and, for switches, bare `--name`: only the flags
    /// `spec` declares. `--help` or `-h` (not as a flag's value) throws `HelpRequested`.
    init(_ arguments: [String], spec: CommandSpec, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let flags = spec.valueFlags, switches = spec.switches
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { throw HelpRequested(spec: spec) }
            guard argument.hasPrefix("--") else { positional.append(argument); continue }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if switches.contains(name) {
                values[name] = value ?? "true"
            } else if flags.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw UsageError(description: "--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                values[name] = value
            } else {
                throw UsageError(description: "unknown option --\(name)")
            }
        }
        for name in flags.union(switches) where values[name] == nil {
            if let value = environment["PACENOTE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")] {
                values[name] = value
            } else if let alias = Self.environmentAliases[name], let value = environment[alias] {
                values[name] = value
            }
        }
    }

    /// Other names a flag's environment variable goes by: API.md spells the database's
    /// `PACENOTE_DATABASE_URL`, which reads better in a deployment than `PACENOTE_DATABASE`.
    static let environmentAliases = ["database": "PACENOTE_DATABASE_URL"]

    func string(_ name: String) -> String? { values[name] }

    func string(_ name: String, default value: String) -> String { values[name] ?? value }

    func int(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(description: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func bool(_ name: String) throws -> Bool {
        switch values[name]?.lowercased() {
        case nil, "false", "0", "no": return false
        case "true", "1", "yes": return true
        default: throw UsageError(description: "--\(name) is true or false")
        }
    }

    /// A duration in milliseconds: seconds as a bare number, or with an ms, s, m, h or d suffix.
    func duration(_ name: String, defaultMillis: Int64) throws -> Int64 {
        guard let text = values[name] else { return defaultMillis }
        let units: [Character: Int64] = ["s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000]
        var digits = Substring(text)
        var unit: Int64 = 1_000
        if text.hasSuffix("ms") {
            unit = 1
            digits = text.dropLast(2)
        } else if let last = text.last, let scale = units[last] {
            unit = scale
            digits = text.dropLast()
        }
        guard let amount = Int64(digits), amount > 0, amount < Int64.max / unit else {
            throw UsageError(description: "--\(name) is a duration such as 900, 15m or 1h")
        }
        return amount * unit
    }
}
