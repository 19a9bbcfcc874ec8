import Foundation
import Storage
import Synchronization

/// A fresh SQLite database in its own temporary folder, removed when released.
final class TemporaryDatabase: Sendable {
    let directory: URL
    let database: SQLiteDatabase

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try SQLiteDatabase(configuration: .init(path: directory.appendingPathComponent("test.sqlite").path))
        try database.write { c in
            try c.executeScript("""
                CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL) STRICT;
                CREATE TABLE children (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parents(id)) STRICT;
                CREATE TABLE nodes (id INTEGER PRIMARY KEY) STRICT;
                """)
        }
    }

    deinit {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func count(_ table: String) throws -> Int {
        try database.read { c in try c.fetchValue(SQL(unsafeSQL: "SELECT count(*) FROM \(table)"), as: Int.self) ?? -1 }
    }
}

/// What the hooks did, in order; hooks are `@Sendable`, so the log is behind a Mutex.
final class Log: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var all: [String] { entries.withLock { $0 } }
}

struct Parent: Sendable, Equatable {
    var id: String
    var name: String = "p"
}

struct Child: Sendable, Equatable {
    var id: String
    var parentID: String
}

struct Node: Sendable {
    var id: Int
}

/// A generic entity: `Box<Int>` and `Box<String>` are different entity types.
struct Box<T: Sendable>: Sendable {
    var value: T
}

struct Refused: Error, Equatable {
    var reason: String
}
