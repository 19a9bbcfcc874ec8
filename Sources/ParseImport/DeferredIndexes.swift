import Foundation
import Schema
import Storage

/// Secondary indexes set aside while a bulk load runs, then built once from sorted data.
///
/// Inserting 1.8 million activities while SQLite maintains every index costs about twice as
/// much as inserting them bare and running CREATE INDEX afterwards (measured on the large
/// export); PostgreSQL builds a B-tree from sorted data the same way. Only plain (non-UNIQUE)
/// indexes are set aside: the UNIQUE ones are what refuses duplicates during the load. Each
/// drop commits with its batch, so a crash can leave them missing: `restore` therefore also
/// rebuilds, from the schema's migrations of the database's dialect, any index of these
/// tables that is missing, and every import calls it first.
struct DeferredIndexes: DeferredForLoad {
    /// The tables whose plain indexes are set aside.
    static let tables = ["videos", "activities"]

    /// The statements of the migrations, in order, their comments removed (they may hold
    /// semicolons), trimmed.
    static func statements(of migrations: [Migration]) -> [String] {
        migrations.flatMap { migration in
            migration.sql.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.range(of: "--").map { line[..<$0.lowerBound] } ?? line }
                .joined(separator: "\n")
                .split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
    }

    /// `CREATE INDEX` statements from the migrations, by index name (the last one wins;
    /// a later `DROP INDEX` removes it).
    static func definitions(from migrations: [Migration]) -> [String: (table: String, sql: String)] {
        var result: [String: (table: String, sql: String)] = [:]
        for text in statements(of: migrations) {
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "(" }).map(String.init)
            if words.count >= 5, words[0] == "CREATE", words[1] == "INDEX", words[3] == "ON" {
                result[words[2]] = (words[4], text)
            } else if words.count >= 3, words[0] == "DROP", words[1] == "INDEX" {
                result[words[2 + (words.count > 4 && words[2] == "IF" ? 2 : 0)]] = nil
            }
        }
        return result
    }

    let dialect: SQLDialect
    let definitions: [String: (table: String, sql: String)]

    init(dialect: SQLDialect) {
        self.dialect = dialect
        definitions = Self.definitions(from: Schema.migrations(for: dialect)).filter { Self.tables.contains($0.value.table) }
    }

    @discardableResult
    func drop(on connection: any DatabaseConnection) throws -> [String] {
        var dropped: [String] = []
        for name in try existing(on: connection) where definitions[name] != nil {
            try connection.execute(SQL(unsafeSQL: "DROP INDEX \(name)"))
            dropped.append(name)
        }
        return dropped
    }

    /// The plain indexes of `tables` the database has (in the schema the session uses, on PostgreSQL).
    func existing(on connection: any DatabaseConnection) throws -> [String] {
        let list = SQL.joined(Self.tables.map { "\($0)" }, separator: ", ")
        let query: SQL
        switch dialect {
        case .sqlite:
            query = """
                SELECT name FROM sqlite_master
                WHERE type = 'index' AND tbl_name IN (\(list)) AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'
                """
        case .postgres:
            // Constraints' indexes (primary keys, UNIQUE columns) are unique, so they are left out too.
            query = """
                SELECT indexname FROM pg_indexes
                WHERE schemaname = current_schema() AND tablename IN (\(list)) AND indexdef NOT LIKE 'CREATE UNIQUE%'
                """
        }
        return try connection.fetchAll(query).map { try $0.decode(at: 0, as: String.self) }
    }
}

/// What an import sets aside for its load (indexes, foreign keys) and puts back after it.
protocol DeferredForLoad {
    /// What is set aside, by name, with the statement that creates it (from the migrations).
    var definitions: [String: (table: String, sql: String)] { get }
    /// Drops what is set aside and exists now; answers the names.
    func drop(on connection: any DatabaseConnection) throws -> [String]
    /// The names of those of `definitions`' kind the database has now.
    func existing(on connection: any DatabaseConnection) throws -> [String]
}

extension DeferredForLoad {
    /// Creates again what the migrations define and the database lacks, in name order;
    /// answers the names.
    @discardableResult
    func restore(on connection: any DatabaseConnection) throws -> [String] {
        guard !definitions.isEmpty else { return [] }
        let present = Set(try existing(on: connection))
        var created: [String] = []
        for (name, definition) in definitions.sorted(by: { $0.key < $1.key }) where !present.contains(name) {
            try connection.execute(SQL(unsafeSQL: definition.sql))
            created.append(name)
        }
        return created
    }
}
