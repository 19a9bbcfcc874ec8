import Foundation
import PostgresStorage
import SocialAPI
import Storage
import Telemetry

/// Chooses the database driver from `--database` (or `PACENOTE_DATABASE_URL`): the executable
/// decides, so SocialAPI and the domain below it know only the `Database` seam.
enum DatabaseFactory {
    enum Choice: Equatable {
        /// The embedded SQLite file in the data directory (no `--database`, or `sqlite:`).
        case sqlite
        /// A PostgreSQL server, by libpq connection URI.
        case postgres(url: String)
    }

    /// Reads the option's value; anything but SQLite or a PostgreSQL URI is a usage error.
    static func choice(_ url: String?) throws -> Choice {
        guard let url, !url.isEmpty, !url.hasPrefix("sqlite:") else { return .sqlite }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") { return .postgres(url: url) }
        throw Options.UsageError(description: "--database is a postgres:// or postgresql:// URL, or sqlite: for the embedded database")
    }

    /// The opener `Application` calls with its configuration.
    static func opener(_ choice: Choice, readers: Int) -> (Application.Configuration, Logger) throws -> any Database {
        switch choice {
        case .sqlite:
            return Application.openSQLite
        case .postgres(let url):
            return { _, _ in
                var configuration = PostgresDatabase.Configuration(url: url)
                configuration.readers = readers
                return try PostgresDatabase(configuration: configuration)
            }
        }
    }
}
