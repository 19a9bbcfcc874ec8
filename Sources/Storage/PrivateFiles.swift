import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A system call on a data file failed; `function` names it. Safe to log: paths only.
public struct PrivateFileError: DriverError {
    public let path: String
    public let function: String
    public let code: Int32

    public var description: String { "\(function) failed for \(path): \(String(cString: strerror(code)))" }
}

/// The data directory and the files that hold what the database holds (emails, password
/// hashes, session digests) are for the server's user only: the directory 0700, the files 0600,
/// as `cursor.key` is.
///
/// Modes are set explicitly rather than left to the umask (which only clears bits and which a
/// caller may have set loosely), and a data directory made by an older version, with 0755 and
/// 0644, is narrowed when it is opened again. A file database creates its companion files
/// (`-wal`, `-shm`) with the database file's own mode, so a 0600 database keeps them 0600
/// too; they are narrowed here as well in case they were left from before.
public enum PrivateFiles {
    public static let directoryMode: mode_t = 0o700
    public static let fileMode: mode_t = 0o600

    /// Prepares `directory` and the database file `fileName` inside it: the directory (and
    /// missing parents) created 0700, or narrowed to 0700; the database file created empty
    /// with 0600 when missing (a file database starts a new database in an empty file); the database,
    /// its `-wal` and `-shm`, and `otherFiles` narrowed to 0600 when they exist.
    ///
    /// - Returns: the paths whose modes were narrowed (empty when everything was private), for
    ///   the caller to log.
    public static func prepare(directory: String, databaseFile fileName: String, otherFiles: [String] = []) throws(PrivateFileError) -> [String] {
        var narrowed: [String] = []
        if try makeDirectory(directory) { narrowed.append(directory) }
        let database = (directory as NSString).appendingPathComponent(fileName)
        try create(file: database, exclusive: false)
        for name in [fileName, fileName + "-wal", fileName + "-shm"] + otherFiles {
            let path = (directory as NSString).appendingPathComponent(name)
            if try narrow(path, to: fileMode) { narrowed.append(path) }
        }
        return narrowed
    }

    /// Creates `path` as an empty file of mode 0600 (`exclusive`: failing with EEXIST when a
    /// file is there already; otherwise leaving an existing file as it is).
    public static func create(file path: String, exclusive: Bool) throws(PrivateFileError) {
        close(try open(file: path, exclusive: exclusive))
    }

    /// `create`, answering the file open for writing; the caller closes the descriptor.
    public static func open(file path: String, exclusive: Bool) throws(PrivateFileError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : 0), fileMode)
        guard fd >= 0 else { throw PrivateFileError(path: path, function: "open", code: errno) }
        // The umask can only clear bits; fchmod makes a new file's mode exact whatever it is.
        // An existing file is left to `narrow`, which never widens a mode.
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            close(fd)
            throw PrivateFileError(path: path, function: "fstat", code: code)
        }
        if status.st_size == 0, status.st_mode & 0o777 != fileMode, fchmod(fd, fileMode) != 0 {
            let code = errno
            close(fd)
            throw PrivateFileError(path: path, function: "fchmod", code: code)
        }
        return fd
    }

    /// Creates the directory and its missing parents, or narrows an existing one; true when an
    /// existing directory was narrowed.
    private static func makeDirectory(_ path: String) throws(PrivateFileError) -> Bool {
        if mkdir(path, directoryMode) == 0 {
            // mkdir applies the umask: make the mode exact.
            guard chmod(path, directoryMode) == 0 else { throw PrivateFileError(path: path, function: "chmod", code: errno) }
            return false
        }
        switch errno {
        case EEXIST:
            return try narrow(path, to: directoryMode)
        case ENOENT:
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { throw PrivateFileError(path: path, function: "mkdir", code: ENOENT) }
            // Parents are made the same way: only the server uses what it creates.
            _ = try makeDirectory(parent)
            return try makeDirectory(path)
        default:
            throw PrivateFileError(path: path, function: "mkdir", code: errno)
        }
    }

    /// Clears the group and other bits of `path` when any is set; false when there is no such
    /// file or it was private already. Never widens a mode (a 0400 file stays 0400).
    private static func narrow(_ path: String, to mode: mode_t) throws(PrivateFileError) -> Bool {
        var status = stat()
        if stat(path, &status) != 0 {
            if errno == ENOENT { return false }
            throw PrivateFileError(path: path, function: "stat", code: errno)
        }
        let current = status.st_mode & 0o7777
        guard current & ~mode != 0 else { return false }
        guard chmod(path, current & mode) == 0 else { throw PrivateFileError(path: path, function: "chmod", code: errno) }
        return true
    }
}
