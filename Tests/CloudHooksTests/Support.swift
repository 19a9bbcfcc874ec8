import Foundation
import Storage
import Synchronization
import TestSupport

extension TemporaryDatabase {
    /// An empty database (of the dialect `TestDatabase` chooses) holding the small tables these
    /// tests hang their hooks on, in DDL both dialects understand.
    static func withHookTables() throws -> TemporaryDatabase {
        let temp = try TemporaryDatabase()
        try temp.database.write { c in
            try c.executeScript("""
                CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE children (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parents(id));
                CREATE TABLE nodes (id INTEGER PRIMARY KEY);
                """)
        }
        return temp
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
