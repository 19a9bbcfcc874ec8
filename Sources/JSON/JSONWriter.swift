/// A type that writes itself as one JSON value.
///
/// Conforming types play the part of Hummingbird's `ResponseGenerator`: hot responses are
/// written straight into a byte buffer, with no intermediate dictionaries.
public protocol JSONEncodable {
    /// Writes exactly one JSON value (object, array, string, number, bool or null).
    func encode(to writer: inout JSONWriter)
}

/// A fast, append-only JSON writer over a growable byte buffer.
///
/// Invariant: as long as callers pair `begin*`/`end*` and put a `key` before each value inside
/// an object, `bytes` is always valid UTF-8 JSON. Strings are escaped so that this holds for any
/// Swift `String` (which is valid UTF-8 already): `"` and `\` are escaped, every control
/// character below U+0020 becomes `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX` (NUL included), and
/// U+2028/U+2029 become `\u2028`/`\u2029` so the output is also safe inside JavaScript.
/// Non-finite doubles are written as `null`. Commas are inserted automatically.
///
/// Cost: one append per token; reserve `capacity` up front to avoid regrowth.
public struct JSONWriter: Sendable {
    @usableFromInline var buffer: [UInt8]
    /// True when the next value or key must be preceded by a comma.
    @usableFromInline var needsComma = false

    /// Creates an empty writer with `capacity` bytes reserved.
    public init(capacity: Int = 1024) {
        buffer = []
        buffer.reserveCapacity(capacity)
    }

    /// The JSON written so far.
    public var bytes: [UInt8] { buffer }

    /// How many bytes are written so far: a mark for `truncate(to:)`.
    public var count: Int { buffer.count }

    /// Removes what was written after `mark`, a `count` taken right after a key, so another
    /// value can take its place: for a value known to be unwanted only once written.
    public mutating func truncate(to mark: Int) {
        buffer.removeSubrange(mark...)
        needsComma = false
    }

    @inlinable mutating func separate() {
        if needsComma { buffer.append(UInt8(ascii: ",")) }
    }

    /// Opens an object (`{`).
    public mutating func beginObject() {
        separate()
        buffer.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes an object (`}`).
    public mutating func endObject() {
        buffer.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array (`[`).
    public mutating func beginArray() {
        separate()
        buffer.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes an array (`]`).
    public mutating func endArray() {
        buffer.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key and the colon; the next call must write its value.
    public mutating func key(_ k: String) {
        separate()
        writeEscaped(k)
        buffer.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object key known at compile time. Keys are ASCII identifiers chosen by the
    /// program, so they are copied as they are: escaping every key of every object showed
    /// up in profiles of list pages.
    public mutating func key(_ k: StaticString) {
        separate()
        buffer.append(UInt8(ascii: "\""))
        appendASCII(k)
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a timestamp as an ISO 8601 string with milliseconds, straight into the buffer.
    public mutating func timestamp(millisecondsSince1970 ms: Int64) {
        separate()
        buffer.append(UInt8(ascii: "\""))
        ISO8601Millis.write(millisecondsSince1970: ms, to: &buffer)
        buffer.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes a calendar date as a `YYYY-MM-DD` string, straight into the buffer.
    public mutating func date(daysSince1970 days: Int) {
        separate()
        buffer.append(UInt8(ascii: "\""))
        CalendarDate.write(daysSince1970: days, to: &buffer)
        buffer.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes a string.
    public mutating func value(_ s: String) {
        separate()
        writeEscaped(s)
        needsComma = true
    }

    /// Writes a string, or `null` when `s` is nil.
    public mutating func value(_ s: String?) {
        separate()
        if let s { writeEscaped(s) } else { appendASCII("null") }
        needsComma = true
    }

    /// Writes a string given as UTF-8 bytes (text read in place from a database), or `null`
    /// for nil. Valid UTF-8 is escaped and copied as it is; other bytes are decoded as `String`
    /// decodes them (each invalid sequence becomes U+FFFD), so the output stays valid JSON.
    public mutating func value(utf8 bytes: UnsafeRawBufferPointer?) {
        separate()
        if let bytes {
            let utf8 = bytes.assumingMemoryBound(to: UInt8.self)
            if Self.isPlainASCII(utf8) {
                // Most stored texts (ids, names, most titles): valid, nothing to escape.
                buffer.append(UInt8(ascii: "\""))
                buffer.append(contentsOf: utf8)
                buffer.append(UInt8(ascii: "\""))
            } else if Self.isValidUTF8(utf8) {
                writeEscaped(utf8)
            } else {
                writeEscaped(String(decoding: utf8, as: UTF8.self))
            }
        } else {
            appendASCII("null")
        }
        needsComma = true
    }

    /// Writes the string `prefix + middle + suffix` without making it (URLs derived from an id).
    public mutating func value(_ prefix: StaticString, _ middle: String, _ suffix: StaticString) {
        separate()
        buffer.append(UInt8(ascii: "\""))
        appendASCII(prefix)
        var middle = middle
        middle.withUTF8 { appendEscapedContent($0) }
        appendASCII(suffix)
        buffer.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes one string made of three UTF-8 parts, each escaped (a URL built from a configured
    /// base, a key read in place from a row, and a suffix), without making a `String`.
    public mutating func value(_ prefix: [UInt8], _ middle: UnsafeRawBufferPointer, _ suffix: [UInt8]) {
        separate()
        buffer.append(UInt8(ascii: "\""))
        prefix.withUnsafeBufferPointer { appendEscapedContent($0) }
        appendEscapedContent(middle.assumingMemoryBound(to: UInt8.self))
        suffix.withUnsafeBufferPointer { appendEscapedContent($0) }
        buffer.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes a value another writer encoded (its `bytes`), as it is.
    public mutating func encoded(_ bytes: [UInt8]) {
        separate()
        buffer.append(contentsOf: bytes)
        needsComma = true
    }

    /// Leaves the value of the key just written out, to be inserted at this offset (`count`)
    /// later (`encoded(_:inserting:at:)`): what follows is separated as if it were there.
    public mutating func leaveValueOut() {
        needsComma = true
    }

    /// Writes a value another writer encoded with `inserted` (a value encoded apart) placed
    /// at `offset` of it, without joining the two in a buffer of their own first.
    public mutating func encoded(_ bytes: [UInt8], inserting inserted: [UInt8], at offset: Int) {
        separate()
        buffer.append(contentsOf: bytes[..<offset])
        buffer.append(contentsOf: inserted)
        buffer.append(contentsOf: bytes[offset...])
        needsComma = true
    }

    /// Writes an integer.
    public mutating func value(_ i: Int) {
        value(Int64(i))
    }

    /// Writes an integer.
    public mutating func value(_ i: Int64) {
        separate()
        writeInteger(i)
        needsComma = true
    }

    /// Writes a double; NaN and infinities become `null` (JSON has no spelling for them).
    public mutating func value(_ d: Double) {
        separate()
        if d.isFinite {
            if d == d.rounded(), abs(d) < 1e15 {
                // Integral values print without exponent noise ("3.0" rather than "3e0").
                writeInteger(Int64(d))
                appendASCII(".0")
            } else {
                appendASCII(d.description)
            }
        } else {
            appendASCII("null")
        }
        needsComma = true
    }

    /// Writes `true` or `false`.
    public mutating func value(_ b: Bool) {
        separate()
        appendASCII(b ? "true" : "false")
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        appendASCII("null")
        needsComma = true
    }

    /// Writes a value that encodes itself.
    public mutating func value(_ v: some JSONEncodable) {
        v.encode(to: &self)
        // An encoder that wrote a scalar through `value` already set this; containers too.
        needsComma = true
    }

    /// Writes a value that encodes itself, or `null` when nil.
    public mutating func value(_ v: (some JSONEncodable)?) {
        if let v { value(v) } else { null() }
    }

    /// Writes an array with one element per item of `s`, each written by `body`.
    public mutating func writeArray<S: Sequence>(_ s: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        beginArray()
        for element in s { body(&self, element) }
        endArray()
    }

    // MARK: fields

    /// Writes `"key": value`.
    public mutating func field(_ key: StaticString, _ value: String) { self.key(key); self.value(value) }
    /// Writes `"key": value` (null when nil).
    public mutating func field(_ key: StaticString, _ value: String?) { self.key(key); self.value(value) }
    /// Writes `"key": value`.
    public mutating func field(_ key: StaticString, _ value: Int) { self.key(key); self.value(value) }
    /// Writes `"key": value`.
    public mutating func field(_ key: StaticString, _ value: Int64) { self.key(key); self.value(value) }
    /// Writes `"key": value`.
    public mutating func field(_ key: StaticString, _ value: Bool) { self.key(key); self.value(value) }
    /// Writes `"key": value` (null when not finite).
    public mutating func field(_ key: StaticString, _ value: Double) { self.key(key); self.value(value) }
    /// Writes `"key": value`.
    public mutating func field(_ key: StaticString, _ value: some JSONEncodable) { self.key(key); self.value(value) }
    /// Writes `"key": value` (null when nil).
    public mutating func field(_ key: StaticString, _ value: (some JSONEncodable)?) { self.key(key); self.value(value) }
    /// Writes `"key": "2014-04-05T10:15:30.123Z"` for milliseconds since the epoch.
    public mutating func field(_ key: StaticString, timestampMillis ms: Int64) { self.key(key); timestamp(millisecondsSince1970: ms) }
    /// Writes `"key": "2014-04-05"` for days since the epoch.
    public mutating func field(_ key: StaticString, date days: Int) { self.key(key); date(daysSince1970: days) }
    /// Writes `"key": [ ... ]` with one element per item.
    public mutating func field(_ key: StaticString, array: some Sequence<some JSONEncodable>) {
        self.key(key)
        beginArray()
        for element in array { value(element) }
        endArray()
    }

    // MARK: primitives

    @inlinable mutating func appendASCII(_ s: StaticString) {
        s.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    @usableFromInline mutating func appendASCII(_ s: String) {
        buffer.append(contentsOf: s.utf8)
    }

    @usableFromInline mutating func writeInteger(_ i: Int64) {
        // Counters are mostly one digit: no buffer for those.
        if (0..<10).contains(i) {
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: i))
            return
        }
        // Two digits per lookup, right to left into a stack buffer, then one append. The
        // magnitude keeps Int64.min from overflowing.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let base = digits.baseAddress!
            var magnitude = i.magnitude
            var index = 20
            while magnitude >= 100 {
                index -= 2
                storeDigitPair(Int(magnitude % 100), at: base + index)
                magnitude /= 100
            }
            if magnitude >= 10 {
                index -= 2
                storeDigitPair(Int(magnitude), at: base + index)
            } else {
                index -= 1
                base[index] = UInt8(ascii: "0") &+ UInt8(magnitude)
            }
            if i < 0 { buffer.append(UInt8(ascii: "-")) }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// True for the bytes `writeEscaped` must look at: controls, `"`, `\\`, and 0xE2 (the first
    /// byte of U+2028 and U+2029).
    @inline(__always) static func mayNeedEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b == 0xE2
    }

    @usableFromInline mutating func writeEscaped(_ s: String) {
        var s = s
        s.withUTF8 { writeEscaped($0) }
    }

    /// Writes valid UTF-8 as a quoted, escaped string.
    mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        buffer.append(UInt8(ascii: "\""))
        appendEscapedContent(utf8)
        buffer.append(UInt8(ascii: "\""))
    }

    /// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Whether every byte is ASCII that a JSON string holds as it is: no control character,
    /// `"` or `\\`. Eight bytes at a time (SWAR): a list page writes a few hundred texts, and
    /// checking them a byte at a time, twice (valid UTF-8, then escapes), showed in profiles.
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// A high bit for each zero byte of `v` (exact for the first one; enough for "any").
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            // Non-ASCII, below 0x20 (w - 0x20 borrows into the high bit of such bytes, which
            // `~w` keeps for bytes under 0x80), a quote, or a backslash.
            if w & highs != 0 || (w &- 0x2020_2020_2020_2020) & ~w & highs != 0
                || hasZero(w ^ 0x2222_2222_2222_2222) || hasZero(w ^ 0x5C5C_5C5C_5C5C_5C5C) {
                return false
            }
            i += 8
        }
        while i < n {
            let b = base[i]
            if b >= 0x80 || Self.mayNeedEscape(b) { return false }
            i += 1
        }
        return true
    }

    /// The escaped content of a string, without the quotes.
    private mutating func appendEscapedContent(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Most strings (ids, names, titles) need no escape: one scan, one copy.
        if Self.isPlainASCII(utf8) {
            buffer.append(contentsOf: utf8)
            return
        }
        guard utf8.contains(where: Self.mayNeedEscape) else {
            buffer.append(contentsOf: utf8)
            return
        }
        var start = 0
        var i = 0
        let n = utf8.count
        while i < n {
            let b = utf8[i]
            var escape: StaticString? = nil
            var unicodeEscape: UInt8? = nil
            var width = 1
            switch b {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0x00..<0x20: unicodeEscape = b
            case 0xE2 where i + 2 < n && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9):
                escape = utf8[i + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                width = 3
            default:
                i += 1
                continue
            }
            if start < i { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i])) }
            if let escape {
                appendASCII(escape)
            } else if let c = unicodeEscape {
                appendASCII("\\u00")
                buffer.append(Self.hexDigits[Int(c >> 4)])
                buffer.append(Self.hexDigits[Int(c & 0xF)])
            }
            i += width
            start = i
        }
        if start < n { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<n])) }
    }
}

// Scalars conform so they can be used with `field(_:array:)` and generic code. Each calls the
// concrete (non-generic) overload, which overload resolution prefers over `value(some JSONEncodable)`.
extension String: JSONEncodable {
    public func encode(to writer: inout JSONWriter) { writer.value(self as String) }
}

extension Int: JSONEncodable {
    public func encode(to writer: inout JSONWriter) { writer.value(self) }
}

extension Int64: JSONEncodable {
    public func encode(to writer: inout JSONWriter) { writer.value(self) }
}

extension Bool: JSONEncodable {
    public func encode(to writer: inout JSONWriter) { writer.value(self) }
}

extension Double: JSONEncodable {
    public func encode(to writer: inout JSONWriter) { writer.value(self) }
}
