import Foundation
import Storage

/// Bound values laid out as `PQexecPrepared` takes them: one byte buffer holding every value
/// (text ones NUL-terminated), and per value its offset, length and format.
///
/// Integers, doubles and text travel in text format, so the server converts them to the type
/// it inferred for the placeholder: `Bool`'s `.integer(1)` arrives as `1`, which a `boolean`
/// column accepts as true. Blobs travel in binary format, so their bytes need no escaping.
struct PostgresParameters {
    private var buffer: [UInt8] = []
    /// Offset of each value in `buffer`; nil for NULL.
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []

    init(_ values: [DatabaseValue]) throws(StorageError) {
        offsets.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .null:
                offsets.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let integer):
                appendText(String(integer))
            case .real(let double):
                appendText(Self.text(double))
            case .text(let text):
                // A text-format value ends at its first NUL, so a string holding one would be
                // cut short silently; PostgreSQL cannot store NUL in text anyway (SQLite can).
                guard !text.utf8.contains(0) else { throw StorageError.unstorableText }
                appendText(text)
            case .blob(let bytes):
                offsets.append(buffer.count)
                buffer.append(contentsOf: bytes)
                lengths.append(Int32(clamping: bytes.count))
                formats.append(1)
            }
        }
        // Never empty, so that it has an address even when the only value is an empty blob
        // (whose pointer must not be NULL: that would bind SQL NULL).
        buffer.append(0)
    }

    private mutating func appendText(_ text: String) {
        offsets.append(buffer.count)
        buffer.append(contentsOf: text.utf8)
        buffer.append(0)
        lengths.append(0)
        formats.append(0)
    }

    /// float8's input spellings for the values Swift prints differently.
    private static func text(_ double: Double) -> String {
        if double.isNaN { return "NaN" }
        if double.isInfinite { return double < 0 ? "-Infinity" : "Infinity" }
        return "\(double)"
    }

    /// Calls `body` with the value pointers, lengths and formats, valid during the call only.
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        buffer.withUnsafeBytes { bytes in
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard let offset, let base = bytes.baseAddress else { return nil }
                return (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return values.withUnsafeBufferPointer { valuePointers in
                lengths.withUnsafeBufferPointer { lengthPointers in
                    formats.withUnsafeBufferPointer { formatPointers in
                        body(valuePointers.baseAddress, lengthPointers.baseAddress, formatPointers.baseAddress)
                    }
                }
            }
        }
    }
}
