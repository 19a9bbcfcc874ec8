import Foundation
import Schema
import Storage

/// Foreign keys set aside while a bulk load runs on PostgreSQL, then added back, each checked
/// in one pass over its table.
///
/// PostgreSQL checks a foreign key with a trigger per inserted row (an index lookup and a row
/// lock on the referenced row): for the large export's activities, 12 of the 29 µs of server
/// time a row. The import's statements check every pointer themselves before inserting
/// (`PostgresImportBackend`), so the triggers only repeat those checks; added back after the
/// load, the three keys of `activities` are checked in 0.6 s. A server running beside the import
/// meanwhile checks its own pointers too, in SERIALIZABLE transactions, and a row that broke a
/// key anyway would make adding it back fail, loudly.
///
/// Only keys without ON DELETE or ON UPDATE actions are set aside: an action is behaviour, not
/// a check. As with the indexes, each drop commits with its batch; `restore` adds back, from the
/// migrations, any key of these tables that is missing, and every import calls it first.
/// SQLite keeps its keys: it cannot drop one without rebuilding the table, and its checks are
/// lookups in the same process.
struct DeferredForeignKeys: DeferredForLoad {
    /// The tables whose foreign keys are set aside.
    static let tables = ["videos", "activities"]

    /// Column constraints `REFERENCES table (column)` without actions, in the `CREATE TABLE`
    /// statements of the migrations, by PostgreSQL's default name (`<table>_<column>_fkey`),
    /// with the statement that adds each back.
    static func definitions(from migrations: [Migration]) -> [String: (table: String, sql: String)] {
        var result: [String: (table: String, sql: String)] = [:]
        for statement in DeferredIndexes.statements(of: migrations) {
            let words = statement.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "(" })
            guard words.count >= 3, words[0] == "CREATE", words[1] == "TABLE", let open = statement.firstIndex(of: "(") else { continue }
            let table = String(words[2])
            for line in statement[statement.index(after: open)...].split(separator: "\n") {
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ")" || $0 == "," })
                guard let references = parts.firstIndex(of: "REFERENCES"), references + 2 < parts.count, references > 0,
                      !parts[(references + 3)...].contains("ON") else { continue }
                let column = parts[0], target = parts[references + 1], targetColumn = parts[references + 2]
                result["\(table)_\(column)_fkey"] = (table, "ALTER TABLE \(table) ADD CONSTRAINT \(table)_\(column)_fkey FOREIGN KEY (\(column)) REFERENCES \(target) (\(targetColumn))")
            }
        }
        return result
    }

    let definitions: [String: (table: String, sql: String)]

    init(dialect: SQLDialect) {
        switch dialect {
        case .sqlite: definitions = [:]
        case .postgres: definitions = Self.definitions(from: Schema.postgres).filter { Self.tables.contains($0.value.table) }
        }
    }

    func drop(on connection: any DatabaseConnection) throws -> [String] {
        var dropped: [String] = []
        for (name, definition) in try existing(on: connection).compactMap({ name in definitions[name].map { (name, $0) } }) {
            try connection.execute(SQL(unsafeSQL: "ALTER TABLE \(definition.table) DROP CONSTRAINT \(name)"))
            dropped.append(name)
        }
        return dropped
    }

    /// The foreign keys of `tables` in the session's schema.
    func existing(on connection: any DatabaseConnection) throws -> [String] {
        guard !definitions.isEmpty else { return [] }
        let list = SQL.joined(Self.tables.map { "\($0)" }, separator: ", ")
        return try connection.fetchAll("""
            SELECT c.conname FROM pg_constraint c
            JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE c.contype = 'f' AND n.nspname = current_schema() AND t.relname IN (\(list))
            ORDER BY c.conname
            """).map { try $0.decode(at: 0, as: String.self) }
    }
}
