import Foundation
import PostgresStorage
import Storage

/// `pacenote backup` on PostgreSQL: the server's own tool, `pg_dump`, in its custom format
/// (compressed, and what `pg_restore` reads, table by table if need be), into a file created
/// here first, 0600 and exclusively, as the SQLite backup's is: it holds the same emails,
/// password hashes and session digests. `pg_dump` takes one consistent snapshot, so the
/// servers keep running meanwhile.
enum PgDump {
    /// `pg_dump` is not on PATH; the message says how to get it or run it by hand.
    struct NotFound: Error, CustomStringConvertible {
        let connection: String
        var description: String {
            """
            backup on PostgreSQL runs pg_dump, which is not on PATH. Install the PostgreSQL client of the server's \
            major version or newer (Debian: apt-get install postgresql-client-15) or put its bin directory on PATH \
            (/usr/lib/postgresql/15/bin), or run it yourself: pg_dump --format=custom --file=FILE "\(connection)" \
            (with the password in PGPASSWORD or ~/.pgpass); pg_restore reads the file back.
            """
        }
    }

    /// pg_dump ran and failed; the file it was writing is removed.
    struct Failed: Error, CustomStringConvertible {
        let status: Int32
        let message: String
        var description: String { "pg_dump exited with status \(status): \(message)" }
    }

    /// The first executable `pg_dump` in PATH's directories.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { ($0.isEmpty ? "." : String($0)) + "/pg_dump" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Dumps the database of `url` into `target` (which must not exist). The password goes to
    /// pg_dump in its environment (PGPASSWORD), never in its arguments, which any user of the
    /// machine can read in the process list.
    static func dump(url: String, to target: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let connection = try PostgresConnectionInfo(parsing: url)
        guard let executable = locate(environment: environment) else { throw NotFound(connection: connection.withoutPassword) }
        try PrivateFiles.create(file: target, exclusive: true)
        var finished = false
        defer { if !finished { unlink(target) } }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: target))
        defer { try? output.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--format=custom", "--no-password", "--dbname=\(connection.withoutPassword)"]
        var childEnvironment = environment
        childEnvironment["PGPASSWORD"] = connection.password
        process.environment = childEnvironment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // pg_dump writes little to stderr (errors, warnings): read it whole after the exit.
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failed(status: process.terminationStatus, message: String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        try output.synchronize()
        finished = true
    }
}
