/// A bounded, big-endian reader over part of an upload, for the header parsers: every read is
/// checked against the end it was given, so a lying length can make a parser refuse the file
/// but never read past it, and nothing is allocated in proportion to a declared size.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var offset: Int
    let end: Int

    init(_ bytes: [UInt8], from offset: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = max(0, min(offset, bytes.count))
        self.end = max(self.offset, min(end ?? bytes.count, bytes.count))
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset >= end }

    mutating func u8() throws(ImagingError) -> UInt8 {
        guard offset < end else { throw .undecodable }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(ImagingError) -> Int {
        Int(try u8()) << 8 | Int(try u8())
    }

    mutating func u24() throws(ImagingError) -> Int {
        try u16() << 8 | Int(try u8())
    }

    mutating func u32() throws(ImagingError) -> Int {
        try u16() << 16 | (try u16())
    }

    mutating func u64() throws(ImagingError) -> UInt64 {
        UInt64(try u32()) << 32 | UInt64(try u32())
    }

    /// Little-endian, for RIFF (WebP).
    mutating func u16le() throws(ImagingError) -> Int {
        Int(try u8()) | Int(try u8()) << 8
    }

    mutating func u24le() throws(ImagingError) -> Int {
        try u16le() | Int(try u8()) << 16
    }

    mutating func u32le() throws(ImagingError) -> Int {
        try u16le() | (try u16le()) << 16
    }

    /// An unsigned integer of `size` bytes (0, 4 or 8, as ISO-BMFF's `iloc` sizes them).
    mutating func unsigned(size: Int) throws(ImagingError) -> Int {
        switch size {
        case 0: return 0
        case 4: return try u32()
        case 8:
            let value = try u64()
            guard value <= UInt64(Int.max) else { throw .undecodable }
            return Int(value)
        default: throw .undecodable
        }
    }

    /// A four-character code (`ftyp`, `ispe`).
    mutating func fourCC() throws(ImagingError) -> FourCC {
        FourCC(UInt32(truncatingIfNeeded: try u32()))
    }

    mutating func skip(_ count: Int) throws(ImagingError) {
        guard count >= 0, count <= remaining else { throw .undecodable }
        offset += count
    }

    /// The next `count` bytes as a cursor of their own (this one moves past them).
    mutating func sub(_ count: Int) throws(ImagingError) -> ByteCursor {
        guard count >= 0, count <= remaining else { throw .undecodable }
        defer { offset += count }
        return ByteCursor(bytes, from: offset, to: offset + count)
    }

    /// A copy of the next `count` bytes; only for short things the parsers must rewrite (an
    /// HEVC parameter set, at most `ByteCursor.maxCopy` bytes).
    mutating func copy(_ count: Int) throws(ImagingError) -> [UInt8] {
        guard count >= 0, count <= remaining, count <= Self.maxCopy else { throw .undecodable }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    static let maxCopy = 4096

    /// Whether the bytes from here start with `prefix`.
    func starts(with prefix: [UInt8]) -> Bool {
        remaining >= prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
    }
}

/// A four-character code, compared as its 32 bits.
struct FourCC: Hashable, Sendable, CustomStringConvertible {
    let value: UInt32

    init(_ value: UInt32) { self.value = value }

    init(_ text: StaticString) {
        var value: UInt32 = 0
        text.withUTF8Buffer { for byte in $0.prefix(4) { value = value << 8 | UInt32(byte) } }
        self.value = value
    }

    var description: String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }, as: UTF8.self)
    }
}
