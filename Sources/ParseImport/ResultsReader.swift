import Foundation
import JSON

/// Reads the elements of a Parse export file, `{"results": [ {...}, ... ]}`, one at a time.
///
/// The file is read in chunks (64 KiB by default); only the element being read is held, so
/// memory is bounded by the largest element kept (`maxElementBytes`), whatever the file size.
/// An element larger than that is skipped without being buffered and reported as `.oversized`.
/// An element whose brackets balance but whose content is not valid JSON is `.invalid`.
/// A file whose structure is broken (no top-level object, no `results` array, the file ends
/// inside the array, junk between elements) throws `ResultsReaderError`: the caller stops
/// that file. Not Sendable: one reader belongs to one thread.
public final class ResultsReader {
    /// One element of the results array.
    public enum Element {
        /// A parsed element (usually an object; the caller checks).
        case value(JSONValue)
        /// The element is larger than `maxElementBytes`; `objectId` is found in its first bytes when possible.
        case oversized(offset: Int, bytes: Int, objectId: String?)
        /// The element's brackets balance but it is not valid JSON.
        case invalid(offset: Int, error: JSONParseError, objectId: String?)
    }

    public static let defaultChunkSize = 64 * 1024
    public static let defaultMaxElementBytes = 1024 * 1024

    private enum Phase {
        case start
        case keys
        case elements(first: Bool)
        case done
    }

    private let source: any ChunkSource
    private let chunkSize: Int
    private let maxElementBytes: Int
    private let name: String
    private var buffer: [UInt8] = []
    private var position = 0
    /// File offset of `buffer[0]`.
    private var bufferOffset = 0
    private var atEOF = false
    private var phase = Phase.start

    /// Opens `path` for reading. Throws when the file cannot be opened.
    public convenience init(path: String, chunkSize: Int = defaultChunkSize, maxElementBytes: Int = defaultMaxElementBytes) throws(ResultsReaderError) {
        guard let source = FileChunkSource(path: path) else {
            throw ResultsReaderError(file: path, offset: 0, reason: "cannot open the file (\(String(cString: strerror(errno))))")
        }
        self.init(source: source, name: path, chunkSize: chunkSize, maxElementBytes: maxElementBytes)
    }

    /// Reads from bytes in memory (tests), `chunkSize` at a time.
    public convenience init(bytes: [UInt8], name: String = "<memory>", chunkSize: Int = defaultChunkSize, maxElementBytes: Int = defaultMaxElementBytes) {
        self.init(source: MemoryChunkSource(bytes: bytes), name: name, chunkSize: chunkSize, maxElementBytes: maxElementBytes)
    }

    init(source: any ChunkSource, name: String, chunkSize: Int, maxElementBytes: Int) {
        precondition(chunkSize > 0 && maxElementBytes > 0)
        self.source = source
        self.name = name
        self.chunkSize = chunkSize
        self.maxElementBytes = maxElementBytes
    }

    /// Bytes consumed so far (for progress lines).
    public var bytesRead: Int { bufferOffset + position }

    /// The next element, or nil after the closing `]` of the results array.
    public func next() throws(ResultsReaderError) -> Element? {
        while true {
            switch phase {
            case .done:
                return nil
            case .start:
                if try peekByte() == 0xEF {
                    // A UTF-8 byte order mark, which some exporters write.
                    for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
                        guard try peekByte() == expected else { throw fail("the file starts with an invalid byte") }
                        position += 1
                    }
                }
                guard let byte = try peekNonWhitespace() else { throw fail("the file is empty") }
                guard byte == UInt8(ascii: "{") else { throw fail("the file is not a JSON object") }
                position += 1
                phase = .keys
            case .keys:
                guard let byte = try peekNonWhitespace() else { throw fail("the file ends before a \"results\" array") }
                if byte == UInt8(ascii: "}") { throw fail("the file has no \"results\" array") }
                if byte == UInt8(ascii: ",") { position += 1; continue }
                guard byte == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try scanValue(limit: 1024)
                guard try peekNonWhitespace() == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                position += 1
                if case .captured(let bytes, _) = key, bytes.elementsEqual(#""results""#.utf8) {
                    guard try peekNonWhitespace() == UInt8(ascii: "[") else { throw fail("\"results\" is not an array") }
                    position += 1
                    phase = .elements(first: true)
                } else {
                    guard try peekNonWhitespace() != nil else { throw fail("the file ends inside a value") }
                    _ = try scanValue(limit: 0)
                }
            case .elements(let first):
                guard let byte = try peekNonWhitespace() else { throw fail("the file ends inside the results array") }
                if byte == UInt8(ascii: "]") {
                    position += 1
                    phase = .done
                    return nil
                }
                if !first {
                    guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']' between elements") }
                    position += 1
                    guard let next = try peekNonWhitespace() else { throw fail("the file ends inside the results array") }
                    if next == UInt8(ascii: "]") || next == UInt8(ascii: ",") { throw fail("expected an element after ','") }
                }
                phase = .elements(first: false)
                let offset = bytesRead
                switch try scanValue(limit: maxElementBytes) {
                case .captured(let bytes, _):
                    do {
                        return .value(try JSONValue.parse(bytes))
                    } catch {
                        return .invalid(offset: offset, error: error, objectId: Self.objectId(in: bytes[...]))
                    }
                case .dropped(let count, let prefix):
                    return .oversized(offset: offset, bytes: count, objectId: Self.objectId(in: prefix[...]))
                }
            }
        }
    }

    // MARK: Scanning

    private enum Scanned {
        case captured([UInt8], count: Int)
        /// Over the limit: only the first bytes are kept, to name the object in the report.
        case dropped(count: Int, prefix: [UInt8])
    }

    private static let prefixKept = 1024

    /// Scans one JSON value starting at `position` (not whitespace) by tracking depth,
    /// strings and escapes, refilling as needed; keeps at most `limit` bytes.
    private func scanValue(limit: Int) throws(ResultsReaderError) -> Scanned {
        var captured: [UInt8] = []
        var count = 0
        var overLimit = false
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            if position == buffer.count {
                guard try refill() else { throw fail(depth > 0 || inString ? "the file ends inside an element" : "the file ends inside the results array") }
            }
            let start = position
            var end: Int?       // exclusive end of the value within the buffer, once found
            let n = buffer.count
            // Read through a buffer pointer: this loop sees every byte of the export.
            buffer.withUnsafeBufferPointer { bytes in
                var index = start
                while index < n {
                    let byte = bytes[index]
                    if inString {
                        if escaped {
                            escaped = false
                        } else if byte == 0x5C {
                            escaped = true
                        } else if byte == 0x22 {
                            inString = false
                            if depth == 0 { end = index + 1; return }
                        }
                        index += 1
                        continue
                    }
                    switch byte {
                    case 0x22:
                        inString = true
                    case 0x7B, 0x5B:
                        depth += 1
                    case 0x7D, 0x5D:
                        if depth == 0 { end = index; return }
                        depth -= 1
                        if depth == 0 { end = index + 1; return }
                    case 0x2C, 0x20, 0x0A, 0x0D, 0x09, 0x3A:
                        if depth == 0 { end = index; return }
                    default:
                        break
                    }
                    index += 1
                }
            }
            let stop = end ?? n
            let piece = buffer[start..<stop]
            count += piece.count
            if !overLimit {
                if count > limit {
                    overLimit = true
                    captured.append(contentsOf: piece.prefix(max(0, Self.prefixKept - captured.count)))
                    if captured.count > Self.prefixKept { captured.removeSubrange(Self.prefixKept...) }
                } else {
                    captured.append(contentsOf: piece)
                }
            } else if captured.count < Self.prefixKept {
                captured.append(contentsOf: piece.prefix(Self.prefixKept - captured.count))
            }
            position = stop
            if end != nil {
                if count == 0 { throw fail("expected a value") }
                return overLimit ? .dropped(count: count, prefix: captured) : .captured(captured, count: count)
            }
        }
    }

    /// The next byte that is not JSON whitespace, without consuming it; nil at end of file.
    private func peekNonWhitespace() throws(ResultsReaderError) -> UInt8? {
        while true {
            while position < buffer.count {
                let byte = buffer[position]
                switch byte {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return byte
                }
            }
            guard try refill() else { return nil }
        }
    }

    /// The next byte, without consuming it; nil at end of file.
    private func peekByte() throws(ResultsReaderError) -> UInt8? {
        if position == buffer.count, try !refill() { return nil }
        return buffer[position]
    }

    /// Replaces the consumed buffer with the next chunk; false at end of file.
    private func refill() throws(ResultsReaderError) -> Bool {
        guard !atEOF else { return false }
        bufferOffset += buffer.count
        position = 0
        do {
            buffer = try source.read(maxBytes: chunkSize)
        } catch {
            throw fail("read failed: \(error)")
        }
        if buffer.isEmpty { atEOF = true; return false }
        return true
    }

    private func fail(_ reason: String) -> ResultsReaderError {
        ResultsReaderError(file: name, offset: bytesRead, reason: reason)
    }

    /// The value of a `"objectId":"…"` member found in raw bytes, if any (best effort, for reports).
    static func objectId(in bytes: ArraySlice<UInt8>) -> String? {
        let key = Array(#""objectId""#.utf8)
        guard bytes.count > key.count, let start = bytes.indices.first(where: { index in
            index + key.count <= bytes.endIndex && bytes[index..<index + key.count].elementsEqual(key)
        }) else { return nil }
        var index = start + key.count
        while index < bytes.endIndex, bytes[index] == 0x20 || bytes[index] == 0x3A { index += 1 }
        guard index < bytes.endIndex, bytes[index] == 0x22 else { return nil }
        index += 1
        let valueStart = index
        while index < bytes.endIndex, bytes[index] != 0x22, index - valueStart < 64 {
            if bytes[index] == 0x5C { return nil }
            index += 1
        }
        guard index < bytes.endIndex, bytes[index] == 0x22 else { return nil }
        return String(decoding: bytes[valueStart..<index], as: UTF8.self)
    }
}

/// A file that cannot be read as `{"results": [...]}`: where and why. Reading stops there.
public struct ResultsReaderError: Error, Sendable, CustomStringConvertible {
    public let file: String
    /// Byte offset in the file where the problem was found.
    public let offset: Int
    public let reason: String

    public var description: String { "\(file): \(reason) (byte \(offset))" }
}

/// Where a reader's bytes come from.
protocol ChunkSource: AnyObject {
    /// Up to `maxBytes` bytes; empty at end of input.
    func read(maxBytes: Int) throws -> [UInt8]
}

struct ChunkReadError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { String(cString: strerror(errno)) }
}

/// A file read with read(2); closed when the source goes away.
final class FileChunkSource: ChunkSource {
    private let descriptor: Int32

    init?(path: String) {
        descriptor = open(path, O_RDONLY)
        if descriptor < 0 { return nil }
    }

    deinit { close(descriptor) }

    func read(maxBytes: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: maxBytes)
        while true {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Foundation.read(descriptor, buffer.baseAddress, maxBytes)
            }
            if count >= 0 {
                bytes.removeSubrange(count...)
                return bytes
            }
            if errno != EINTR { throw ChunkReadError(errno: errno) }
        }
    }
}

/// Bytes in memory, handed out a chunk at a time (tests use tiny chunks).
final class MemoryChunkSource: ChunkSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func read(maxBytes: Int) throws -> [UInt8] {
        let end = min(bytes.count, offset + maxBytes)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}
