import Foundation
import Schema
import SocialAPI
import Storage
import Telemetry

/// The database as `serve` opens it (the same driver and settings, migrations applied) and
/// nothing around it: no workers, no hooks, no cursor secret written into the data directory.
/// For the commands that only read or write rows (`migrate`, `backup`, `outbox`, `user create`
/// and `user role`); a command that needs the server's services (`push test`, `user
/// reset-link`) builds the `Application`.
enum CommandDatabase {
    /// Opens the database for the time of `body`, then closes it.
    static func with<T>(_ options: Options, _ body: (any Database) throws -> T) throws -> T {
        let configuration = try CommonOptions.configuration(options)
        let logger = try CommonOptions.logger(options)
        let database = try CommonOptions.openDatabase(options)(configuration, logger)
        defer { database.close() }
        let applied = try Migrator(migrations: Schema.migrations(for: database.dialect)).migrate(database, now: SystemClock().nowMillis())
        if !applied.isEmpty { logger.info("migrations applied", ["names": applied.joined(separator: ",")]) }
        return try body(database)
    }
}
