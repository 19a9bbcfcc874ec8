import Auth
import Foundation
import SocialAPI
import Telemetry

/// The commands of API.md "Command line".
enum PacenoteCommand {
    static let usage = """
        usage: pacenote <command> [options]

          serve [--listen 127.0.0.1:8080] [--data-dir ./data]   run the server (applies migrations first)
          migrate [--data-dir ./data]                           apply pending migrations and exit
          user create --username U --email E --password P [--role user|moderator|admin]
          user role USERNAME ROLE
          backup FILE                                           online copy of a running SQLite database
          import-parse DIR [--data-dir ./data]                  import a Parse export (_User.json, Rallye.json, ...)

        Every option also reads PACENOTE_<OPTION> from the environment (PACENOTE_DATA_DIR, ...).
        serve options: --bcrypt-cost N (10), --lockout-threshold N (10), --lockout-window 15m,
          --lockout-duration 15m, --session-lifetime 365d, --threads N (cores), --hash-threads N (2),
          --db-readers N (4), --sqlite-synchronous normal|full, --log-level info, --public-read,
          --auto-hide-flags N (5), --cursor-secret HEX64 (default: generated into <data-dir>/cursor.key),
          --fanout-sync-limit N (1000 followers whose home gets a new video inside the write; the rest, and every like, comment and follow, by the outbox worker),
          --max-connections-per-ip N (64), --header-timeout 10s (a request head must be complete within it)
        """

    /// Runs one command; answers the process exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "serve": return try ServeCommand.run(rest)
            case "migrate": return try MigrateCommand.run(rest)
            case "user": return try UserCommand.run(rest)
            case "backup": return try BackupCommand.run(rest)
            case "import-parse": return try ImportParseCommand.run(rest)
            case "help", "--help", "-h":
                print(usage)
                return 0
            default:
                throw Options.UsageError(description: "unknown command \(command)")
            }
        } catch let error as Options.UsageError {
            FileHandle.standardError.write(Data("pacenote: \(error)\n\n\(usage)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("pacenote: \(CommandError.describe(error))\n".utf8))
            return 1
        }
    }
}

/// Options every command that opens the database shares.
enum CommonOptions {
    static let flags: Set<String> = ["data-dir", "database", "log-level", "db-readers", "sqlite-synchronous"]

    static func configuration(_ options: Options) throws -> Application.Configuration {
        var configuration = Application.Configuration()
        configuration.dataDirectory = options.string("data-dir", default: "./data")
        if let url = options.string("database"), !url.hasPrefix("sqlite:") {
            throw Options.UsageError(description: "--database: only the embedded SQLite database is supported in this build (PostgreSQL support has not landed yet)")
        }
        configuration.databaseReaders = try options.int("db-readers", default: 4, range: 1...64)
        switch options.string("sqlite-synchronous", default: "normal").lowercased() {
        case "normal": configuration.sqliteSynchronousFull = false
        case "full": configuration.sqliteSynchronousFull = true
        default: throw Options.UsageError(description: "--sqlite-synchronous is normal or full")
        }
        return configuration
    }

    static func logger(_ options: Options) throws -> Logger {
        let name = options.string("log-level", default: "info")
        guard let level = LogLevel(name: name) else {
            throw Options.UsageError(description: "--log-level is debug, info, warning or error")
        }
        return Logger(handler: JSONLinesLogHandler(), level: level)
    }
}

/// Sentences for errors that stop a command.
enum CommandError {
    static func describe(_ error: any Error) -> String {
        switch error {
        case AuthError.usernameTaken: return "that username is taken"
        case AuthError.emailTaken: return "that email address is already registered"
        case AuthError.notFound: return "no such user"
        case AuthError.validation(let field, let message): return "\(field): \(message)"
        default: return String(describing: error)
        }
    }
}
