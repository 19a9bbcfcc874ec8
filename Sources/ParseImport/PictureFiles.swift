import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The FILES directory of `import-parse --files`: where the operator saved the export's Parse
/// files, each under its Parse `name` (Parse's file URLs are gone).
///
/// A name comes from the export and is untrusted: it is taken as one plain file name in this
/// directory and nothing else. A name holding `/`, `\` or NUL, or that is empty, `.` or `..`,
/// is refused unread; the file is opened relative to the directory (`openat`) without following
/// a symbolic link (`O_NOFOLLOW`), so no name reaches a file outside FILES; only a regular
/// file is read (not a directory, a FIFO or a device), and at most `maxBytes` of it.
/// Not Sendable: one import, one thread.
final class PictureFiles {
    let path: String
    private let descriptor: Int32

    /// Opens the directory; throws when it is not one or cannot be opened.
    init(path: String) throws(ImportError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ImportError.filesUnreadable(path, reason: Self.describe(errno)) }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The bytes of the file `name`, or why it cannot be used as a picture's source.
    func contents(of name: String, maxBytes: Int) -> Result<[UInt8], PictureProblem> {
        if let refusal = Self.refusal(of: name) { return .failure(.refusedName(refusal)) }
        let file = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard file >= 0 else {
            let code = errno
            switch code {
            case ENOENT: return .failure(.missing)
            // O_NOFOLLOW: the name is a symbolic link (which could point anywhere).
            case ELOOP: return .failure(.notARegularFile("a symbolic link, not followed"))
            case ENAMETOOLONG: return .failure(.refusedName("longer than the file system allows"))
            default: return .failure(.unreadable(Self.describe(code)))
            }
        }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { return .failure(.unreadable(Self.describe(errno))) }
        switch status.st_mode & Self.typeMask {
        case Self.regularFile: break
        case Self.directory: return .failure(.notARegularFile("a directory"))
        default: return .failure(.notARegularFile("not a regular file"))
        }
        if status.st_size > maxBytes { return .failure(.tooLarge(bytes: Int(status.st_size), limit: maxBytes)) }
        // Read until the end, but never more than one byte past the limit: a file that grew
        // since `fstat` is still refused rather than read whole.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= maxBytes {
            let wanted = min(chunk.count, maxBytes + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(Self.describe(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        if bytes.count > maxBytes { return .failure(.tooLarge(bytes: bytes.count, limit: maxBytes)) }
        return .success(bytes)
    }

    /// Why `name` is not looked up at all, or nil when it is a plain file name.
    static func refusal(of name: String) -> String? {
        if name.isEmpty { return "an empty name" }
        if name == "." || name == ".." { return "not a file name" }
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"): return "a path, not a file name"
            case 0: return "holds a NUL character"
            default: continue
            }
        }
        if name.utf8.count > 255 { return "longer than 255 bytes" }
        return nil
    }

    /// A file name as a report may print it: as it is when it is short and plain, else escaped
    /// and cut, so a hostile name can neither flood the report nor forge its lines.
    static func reportable(_ name: String) -> String {
        let plain = name.utf8.count <= 120 && name.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        if plain && !name.isEmpty { return name }
        let escaped = String(name.prefix(80)).debugDescription
        return name.count > 80 ? escaped + "…" : escaped
    }

    private static let typeMask: mode_t = 0o170000
    private static let regularFile: mode_t = 0o100000
    private static let directory: mode_t = 0o040000

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Why one Parse file did not become a user's picture.
enum PictureProblem: Error, Equatable, Sendable {
    /// The field is not a Parse File object with a name (`{"__type": "File", "name": ...}`).
    case notAParseFile
    /// The name is not looked up (see `PictureFiles.refusal(of:)`).
    case refusedName(String)
    case missing
    case notARegularFile(String)
    case tooLarge(bytes: Int, limit: Int)
    case unreadable(String)
    /// Read, but `Imaging` refused it: not a JPEG, PNG, WebP or HEIC picture it can decode.
    case notAnImage(String)

    /// What the summary counts it as.
    var category: String {
        switch self {
        case .notAParseFile: "not a Parse File"
        case .refusedName: "refused name"
        case .missing: "missing file"
        case .notARegularFile: "not a regular file"
        case .tooLarge: "too large"
        case .unreadable: "unreadable"
        case .notAnImage: "not an image"
        }
    }

    /// The category with the particulars, as the report's line says it.
    var description: String {
        switch self {
        case .notAParseFile: "not a Parse File object with a name"
        case .refusedName(let why): "refused name (\(why)); not looked up"
        case .missing: "missing file: no such file in FILES"
        case .notARegularFile(let what): "not a regular file: \(what)"
        case .tooLarge(let bytes, let limit): "too large: \(bytes) bytes, over the \(limit / 1_048_576) MiB limit of an upload"
        case .unreadable(let why): "unreadable: \(why)"
        case .notAnImage(let why): "not an image: \(why)"
        }
    }
}
