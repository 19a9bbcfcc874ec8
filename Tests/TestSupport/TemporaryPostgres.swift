import Foundation
import PostgresStorage
import Schema
import Storage

/// A PostgreSQL schema of its own, in the database `scripts/postgres` starts and names in
/// PACENOTE_TEST_POSTGRES_URL, dropped when released. Sessions opened through `url` have it
/// first on their search_path (then `public`, where `unaccent` lives), so each test sees an
/// empty database of its own while the suite shares one cluster.
public final class TemporaryPostgres: Sendable {
    /// The cluster's URL, or nil when the tests run without one (they are skipped then).
    public static var baseURL: String? {
        guard let url = ProcessInfo.processInfo.environment["PACENOTE_TEST_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }

    /// Why PostgreSQL tests are skipped, for XCTSkip.
    public static let skipReason = "PACENOTE_TEST_POSTGRES_URL is not set (scripts/postgres starts a cluster and sets it)"

    public let schema: String
    /// A libpq URI whose sessions use `schema`.
    public let url: String
    public let database: PostgresDatabase
    private let admin: PostgresDatabase

    public init(migrated: Bool = false, configure: (inout PostgresDatabase.Configuration) -> Void = { _ in }) throws {
        guard let base = Self.baseURL else { throw StorageError.connectionLost(Self.skipReason) }
        let schema = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        self.schema = schema
        var adminConfiguration = PostgresDatabase.Configuration(url: base)
        adminConfiguration.readers = 1
        adminConfiguration.writers = 1
        let admin = try PostgresDatabase(configuration: adminConfiguration)
        self.admin = admin
        try admin.write { c in try c.execute(SQL(unsafeSQL: "CREATE SCHEMA \(schema)")) }
        // libpq URI parameter `options`: `-c search_path=<schema>,public`, percent-encoded.
        url = base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)%2Cpublic"
        var configuration = PostgresDatabase.Configuration(url: url)
        configure(&configuration)
        database = try PostgresDatabase(configuration: configuration)
        if migrated { try Migrator(migrations: Schema.postgres).migrate(database, now: 0) }
    }

    deinit {
        database.close()
        _ = try? admin.write { c in try c.execute(SQL(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")) }
        admin.close()
    }
}
