import Auth
import Community
import Foundation
import SocialAPI
import Storage
import Telemetry

/// The commands of API.md "Command line".
enum PacenoteCommand {
    /// Every command, in the order `pacenote help` lists them.
    static let commands: [(name: String, spec: CommandSpec, run: @Sendable ([String]) throws -> Int32)] = [
        ("serve", ServeCommand.spec, ServeCommand.run),
        ("migrate", MigrateCommand.spec, MigrateCommand.run),
        ("user", UserCommand.spec, UserCommand.run),
        ("backup", BackupCommand.spec, BackupCommand.run),
        ("import-parse", ImportParseCommand.spec, ImportParseCommand.run),
        ("outbox", OutboxCommand.spec, OutboxCommand.run),
        ("push", PushCommand.spec, PushCommand.run),
        ("announce", AnnounceCommand.spec, AnnounceCommand.run),
    ]

    static var usage: String {
        let lines = commands.map { "  pacenote \($0.spec.synopsis)" }
        return (["usage: pacenote <command> [options]", ""] + lines + [
            "",
            "`pacenote <command> --help` lists a command's options; each option also reads",
            "PACENOTE_<OPTION> from the environment (--data-dir from PACENOTE_DATA_DIR, ...).",
        ]).joined(separator: "\n")
    }

    /// Runs one command; answers the process exit status.
    static func run(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch name {
            case "help", "--help", "-h":
                // `pacenote help serve` is `pacenote serve --help`.
                guard !rest.isEmpty else {
                    print(usage)
                    return 0
                }
                return run(rest + ["--help"])
            default:
                guard let command = commands.first(where: { $0.name == name }) else {
                    throw Options.UsageError(description: "unknown command \(name)")
                }
                return try command.run(rest)
            }
        } catch let help as HelpRequested {
            print(help.spec.help)
            return 0
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
    /// Where the data lives and how to open it.
    static let database: [CommandSpec.Flag] = [
        .init("data-dir", "DIR", "where the SQLite database and cursor.key live (./data)"),
        .init("database", "URL", "postgres://user:pass@host:5432/db for PostgreSQL, also read from PACENOTE_DATABASE_URL (the embedded SQLite in --data-dir)"),
        .init("db-readers", "N", "reader connections: SQLite's, or PostgreSQL sessions for reads (4)"),
        .init("sqlite-synchronous", "normal|full", "normal survives a crash of the process, full also a power loss (normal)"),
        .init("sqlite-wal-sync", "DURATION|off", "under normal, how often the WAL is synced off the request path: a power loss loses at most that long of commits (200ms; off: the kernel's writeback, about 30 s)"),
    ]
    static let logLevel = CommandSpec.Flag("log-level", "LEVEL", "debug, info, warning or error (info); JSON lines on stderr")
    /// The flags of every command that opens the database.
    static let flags = database + [logLevel]

    static func configuration(_ options: Options) throws -> Application.Configuration {
        var configuration = Application.Configuration()
        configuration.dataDirectory = options.string("data-dir", default: "./data")
        // Checked here, before anything opens: a malformed --database is a usage error.
        _ = try DatabaseFactory.choice(options.string("database"))
        configuration.databaseReaders = try options.int("db-readers", default: 4, range: 1...64)
        switch options.string("sqlite-synchronous", default: "normal").lowercased() {
        case "normal": configuration.sqliteSynchronousFull = false
        case "full": configuration.sqliteSynchronousFull = true
        default: throw Options.UsageError(description: "--sqlite-synchronous is normal or full")
        }
        if options.string("sqlite-wal-sync")?.lowercased() == "off" {
            configuration.sqliteWALSyncMillis = 0
        } else {
            configuration.sqliteWALSyncMillis = Int(try options.duration("sqlite-wal-sync", defaultMillis: 200))
        }
        return configuration
    }

    /// How the commands' `Application` opens its database, from `--database`.
    static func openDatabase(_ options: Options) throws -> (Application.Configuration, Logger) throws -> any Database {
        let readers = try options.int("db-readers", default: 4, range: 1...64)
        return DatabaseFactory.opener(try DatabaseFactory.choice(options.string("database")), readers: readers)
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
        case AnnouncementError.validation(let field, let message): return "\(field): \(message)"
        default: return String(describing: error)
        }
    }
}
