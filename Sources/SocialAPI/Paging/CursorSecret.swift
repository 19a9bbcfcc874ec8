import Crypto
import Foundation
import Storage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the cursor secret could not be loaded. Descriptions name the file, never the key.
enum CursorSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `--cursor-secret` was given but is not 64 hexadecimal characters.
    case invalidConfiguredSecret
    /// `<data-dir>/cursor.key` exists but does not hold 64 hexadecimal characters.
    case invalidKeyFile(path: String)
    /// A system call on the key file failed; `function` names it.
    case io(path: String, function: String, errno: Int32)
    /// No random bytes could be drawn for a new key.
    case random(CryptoError)

    var description: String {
        switch self {
        case .invalidConfiguredSecret:
            "--cursor-secret must be 64 hexadecimal characters (32 bytes)"
        case .invalidKeyFile(let path):
            "\(path) does not hold a cursor key (64 hexadecimal characters); remove it to make a new one"
        case .io(let path, let function, let code):
            "\(function) failed for \(path): \(String(cString: strerror(code)))"
        case .random(let error):
            "cannot make a cursor key: \(error)"
        }
    }
}

/// The cursor secret: `--cursor-secret` (64 hex chars) when given, else `<data-dir>/cursor.key`,
/// created on first start with 32 random bytes (mode 0600, written to a temp file then linked
/// into place, so a crash never leaves a half key).
///
/// The file holds the key as 64 lowercase hex characters and a newline, the same spelling
/// `--cursor-secret` takes: several servers sharing one PostgreSQL must share the secret, or a
/// cursor from one is refused by another, and an operator can copy it from the file.
/// Changing the secret only makes outstanding cursors answer `invalid_cursor`.
enum CursorSecret {
    static let fileName = "cursor.key"
    static let byteCount = 32

    static func load(dataDirectory: String, configured: String?) throws -> HMACKey {
        if let configured {
            guard let bytes = parse(configured) else { throw CursorSecretError.invalidConfiguredSecret }
            return HMACKey(bytes: bytes)
        }
        let path = (dataDirectory as NSString).appendingPathComponent(fileName)
        if let existing = try readKey(path) { return HMACKey(bytes: existing) }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let fresh: [UInt8]
        do {
            fresh = try SecureRandom.bytes(byteCount)
        } catch {
            throw CursorSecretError.random(error)
        }
        // Another process starting at the same moment may win the race: then its key is the one.
        guard let bytes = try createKey(path, bytes: fresh) ?? readKey(path) else {
            throw CursorSecretError.io(path: path, function: "link", errno: EEXIST)
        }
        return HMACKey(bytes: bytes)
    }

    /// 64 hex characters (surrounding whitespace ignored) as 32 bytes, or nil.
    static func parse(_ text: String) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count == byteCount * 2, let bytes = Hex.decode(trimmed) else { return nil }
        return bytes
    }

    /// The key in the file at `path`, nil when there is no such file.
    private static func readKey(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw CursorSecretError.io(path: path, function: "open", errno: errno)
        }
        defer { close(fd) }
        // The file is 65 bytes; reading a little more tells a longer (wrong) file apart.
        var buffer = [UInt8](repeating: 0, count: 256)
        var filled = 0
        while filled < buffer.count {
            let n = buffer.withUnsafeMutableBytes { raw in
                // Unsafe pointer: `raw` is the array's storage; `filled < raw.count` bounds the write.
                read(fd, raw.baseAddress! + filled, raw.count - filled)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw CursorSecretError.io(path: path, function: "read", errno: errno)
            }
            if n == 0 { break }
            filled += n
        }
        guard let bytes = parse(String(decoding: buffer[..<filled], as: UTF8.self)) else {
            throw CursorSecretError.invalidKeyFile(path: path)
        }
        return bytes
    }

    /// Writes `bytes` to `path` if no file is there yet; answers nil when one appeared meanwhile.
    ///
    /// The key goes to a private temp file (`PrivateFiles`: 0600, exclusively; fsynced), which is then
    /// hard-linked to `path`: `link` fails with EEXIST rather than replace a key another process
    /// just made, and `path` only ever names a complete file. The directory is fsynced so the
    /// new name survives a power cut.
    private static func createKey(_ path: String, bytes: [UInt8]) throws -> [UInt8]? {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(path).tmp-\(getpid())-\(Hex.encode((try? SecureRandom.bytes(6)) ?? []))"
        let fd: Int32
        do {
            fd = try PrivateFiles.open(file: temporary, exclusive: true)
        } catch {
            throw CursorSecretError.io(path: error.path, function: error.function, errno: error.code)
        }
        defer { unlink(temporary) }
        do {
            defer { close(fd) }
            let text = Array((Hex.encode(bytes) + "\n").utf8)
            var written = 0
            while written < text.count {
                let n = text.withUnsafeBytes { raw in
                    // Unsafe pointer: `raw` is the array's storage; `written < raw.count` bounds the read.
                    write(fd, raw.baseAddress! + written, raw.count - written)
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw CursorSecretError.io(path: temporary, function: "write", errno: errno)
                }
                written += n
            }
            guard fsync(fd) == 0 else { throw CursorSecretError.io(path: temporary, function: "fsync", errno: errno) }
        }
        if link(temporary, path) != 0 {
            if errno == EEXIST { return nil }
            throw CursorSecretError.io(path: path, function: "link", errno: errno)
        }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
        return bytes
    }
}
