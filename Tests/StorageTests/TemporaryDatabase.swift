import Foundation
@testable import Storage

/// A fresh SQLite database in its own temporary folder, removed when released.
final class TemporaryDatabase: Sendable {
    let directory: URL
    let database: SQLiteDatabase

    init(readers: Int = 4, configure: (inout SQLiteDatabase.Configuration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pacenote-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = SQLiteDatabase.Configuration(path: directory.appendingPathComponent("test.sqlite").path)
        configuration.readers = readers
        configure(&configuration)
        database = try SQLiteDatabase(configuration: configuration)
    }

    deinit {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
