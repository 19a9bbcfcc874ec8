/// A parsed JSON document.
///
/// Numbers without fraction or exponent that fit in `Int64` are `.int`; every other number is
/// `.double`, beyond `Double`'s range an infinity of its sign (`1e400` is valid JSON: a field
/// refuses it as out of range, naming the field, rather than the whole body being malformed).
/// A duplicated key in an object is refused or keeps its last value, as the parser is asked
/// (`DuplicateKeys`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The string, when this is `.string`.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, when this is `.int` (and fits `Int`) or an integral `.double` that fits `Int`.
    public var intValue: Int? {
        switch self {
        case .int(let i): return Int(exactly: i)
        case .double(let d): return Int(exactly: d)
        default: return nil
        }
    }

    /// The boolean, when this is `.bool`.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, when this is `.array`.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members, when this is `.object`.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
}

extension JSONValue: JSONEncodable {
    /// Writes the value back as JSON; object keys are sorted so output is stable.
    public func encode(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let b): writer.value(b)
        case .int(let i): writer.value(i)
        case .double(let d): writer.value(d)
        case .string(let s): writer.value(s)
        case .array(let a):
            writer.beginArray()
            for element in a { element.encode(to: &writer) }
            writer.endArray()
        case .object(let o):
            writer.beginObject()
            for (k, v) in o.sorted(by: { $0.key < $1.key }) {
                writer.key(k)
                v.encode(to: &writer)
            }
            writer.endObject()
        }
    }
}

extension JSONValue {
    /// The value as JSON text: for job payloads, and for lists bound as one value that
    /// SQLite's `json_each` reads (one statement shape whatever the list's length).
    /// Values as the text of one JSON array: a list bound as one value, which SQL's
    /// `json_each` (SQLite) and `jsonb_array_elements_text` (PostgreSQL) read back.
    public static func arrayText(_ values: [String]) -> String { JSONValue.array(values.map(JSONValue.string)).encodedText }
    public static func arrayText(_ values: [Int64]) -> String { JSONValue.array(values.map(JSONValue.int)).encodedText }

    public var encodedText: String {
        var writer = JSONWriter(capacity: 128)
        encode(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// Why a document was refused. `reason` is short and never echoes the input.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    /// Byte offset into the input where the problem was found.
    public let offset: Int
    /// A short, input-free explanation ("invalid UTF-8", "trailing comma", ...).
    public let reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// What the parser does with an object that names a key twice. RFC 8259 section 4 says only
    /// that names "SHOULD be unique" and that receivers then differ: some take the first value,
    /// some the last. Where another program reads the same bytes (an audit proxy, a gateway),
    /// that difference lets one request mean two things, so request bodies refuse duplicates.
    public enum DuplicateKeys: Sendable {
        /// The last value wins (documents we wrote or trust: job payloads, exports, C-library answers).
        case keepLast
        /// The document is refused ("duplicate key"), at any depth. Keys are compared once
        /// unescaped, so `"a"` and `"\u0061"` are the same key.
        case refuse
    }

    /// Parses one JSON document strictly (RFC 8259).
    ///
    /// Refused: invalid UTF-8 anywhere, lone surrogate escapes, nesting deeper than `maxDepth`
    /// containers, trailing garbage, leading zeros, trailing commas, comments, NaN/Infinity
    /// literals, raw control characters in strings, and with `duplicateKeys: .refuse` an object
    /// naming a key twice. Surrounding JSON
    /// whitespace is allowed. `\u0000` decodes to a NUL character. Time and memory are linear in
    /// the input size; recursion depth is bounded by `maxDepth`.
    public static func parse(
        _ bytes: some Collection<UInt8>, maxDepth: Int = 64, duplicateKeys: DuplicateKeys = .keepLast
    ) throws(JSONParseError) -> JSONValue {
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            var parser = JSONParser(input: buffer, maxDepth: maxDepth, refusesDuplicateKeys: duplicateKeys == .refuse)
            return Result { () throws(JSONParseError) in try parser.parseDocument() }
        }) {
            return try result.get()
        }
        let array = Array(bytes)
        let result = array.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(input: buffer, maxDepth: maxDepth, refusesDuplicateKeys: duplicateKeys == .refuse)
            return Result { () throws(JSONParseError) in try parser.parseDocument() }
        }
        return try result.get()
    }
}

/// Recursive-descent parser over a borrowed buffer; valid only inside `JSONValue.parse`.
struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let refusesDuplicateKeys: Bool
    var pos = 0
    var depth = 0

    init(input: UnsafeBufferPointer<UInt8>, maxDepth: Int, refusesDuplicateKeys: Bool = false) {
        self.input = input
        self.maxDepth = maxDepth
        self.refusesDuplicateKeys = refusesDuplicateKeys
    }

    func fail(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? pos, reason: reason)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if pos != input.count { throw fail("unexpected data after the document") }
        return value
    }

    mutating func skipWhitespace() {
        while pos < input.count {
            switch input[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard pos < input.count else { throw fail("unexpected end of input") }
        switch input[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let n = literal.utf8CodeUnitCount
        guard input.count - pos >= n else { throw fail("invalid literal") }
        let matches = literal.withUTF8Buffer { lit in
            for i in 0..<n where input[pos + i] != lit[i] { return false }
            return true
        }
        guard matches else { throw fail("invalid literal") }
        pos += n
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw fail("nesting too deep") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if pos < input.count, input[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard pos < input.count else { throw fail("unexpected end of input") }
            guard input[pos] == UInt8(ascii: "\"") else {
                throw fail(input[pos] == UInt8(ascii: "}") ? "trailing comma" : "expected a string key")
            }
            let keyOffset = pos
            let key = try parseString()
            skipWhitespace()
            guard pos < input.count, input[pos] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            pos += 1
            skipWhitespace()
            // The dictionary is the set of keys seen: updateValue reports a key already there
            // at no cost beyond the insertion itself.
            if members.updateValue(try parseValue(), forKey: key) != nil, refusesDuplicateKeys {
                throw fail("duplicate key", at: keyOffset)
            }
            skipWhitespace()
            guard pos < input.count else { throw fail("unexpected end of input") }
            if input[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if input[pos] == UInt8(ascii: "}") { pos += 1; break }
            throw fail("expected ',' or '}'")
        }
        depth -= 1
        return .object(members)
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if pos < input.count, input[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if pos < input.count, input[pos] == UInt8(ascii: "]") { throw fail("trailing comma") }
            elements.append(try parseValue())
            skipWhitespace()
            guard pos < input.count else { throw fail("unexpected end of input") }
            if input[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if input[pos] == UInt8(ascii: "]") { pos += 1; break }
            throw fail("expected ',' or ']'")
        }
        depth -= 1
        return .array(elements)
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = pos
        var isInteger = true
        if input[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < input.count, isDigit(input[pos]) else { throw fail("invalid number") }
        if input[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < input.count, isDigit(input[pos]) { throw fail("leading zero in number") }
        } else {
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        }
        if pos < input.count, input[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos += 1
            guard pos < input.count, isDigit(input[pos]) else { throw fail("invalid number") }
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        }
        if pos < input.count, input[pos] == UInt8(ascii: "e") || input[pos] == UInt8(ascii: "E") {
            isInteger = false
            pos += 1
            if pos < input.count, input[pos] == UInt8(ascii: "+") || input[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < input.count, isDigit(input[pos]) else { throw fail("invalid number") }
            while pos < input.count, isDigit(input[pos]) { pos += 1 }
        }
        // The bytes are ASCII digits and signs only, checked above.
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<pos]), as: UTF8.self)
        if isInteger, let i = Int64(text) { return .int(i) }
        // Double(text) is infinite past its range and zero below it; both are kept as such.
        guard let d = Double(text) else { throw fail("invalid number", at: start) }
        return .double(d)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// Parses a string starting at the opening quote, validating UTF-8 as it goes.
    mutating func parseString() throws(JSONParseError) -> String {
        pos += 1  // opening quote
        let start = pos
        // Fast path: no escapes; validate and slice.
        var out: [UInt8] = []
        var hasEscapes = false
        while true {
            guard pos < input.count else { throw fail("unterminated string") }
            let b = input[pos]
            if b == UInt8(ascii: "\"") {
                let result: String
                if hasEscapes {
                    result = String(decoding: out, as: UTF8.self)
                } else {
                    result = String(decoding: UnsafeBufferPointer(rebasing: input[start..<pos]), as: UTF8.self)
                }
                pos += 1
                return result
            } else if b == UInt8(ascii: "\\") {
                if !hasEscapes {
                    hasEscapes = true
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<pos]))
                }
                try parseEscape(into: &out)
            } else if b < 0x20 {
                throw fail("control character in string")
            } else if b < 0x80 {
                if hasEscapes { out.append(b) }
                pos += 1
            } else {
                let n = try validateUTF8Scalar()
                if hasEscapes { out.append(contentsOf: UnsafeBufferPointer(rebasing: input[pos..<pos + n])) }
                pos += n
            }
        }
    }

    /// Validates one multi-byte UTF-8 sequence at `pos`; returns its length. Refuses overlong
    /// forms, encoded surrogates and code points above U+10FFFF.
    func validateUTF8Scalar() throws(JSONParseError) -> Int {
        let b0 = input[pos]
        let n: Int
        var lowerBound: UInt8 = 0x80
        var upperBound: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; upperBound = 0x9F
        case 0xF0: n = 4; lowerBound = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; upperBound = 0x8F
        default: throw fail("invalid UTF-8")
        }
        guard input.count - pos >= n else { throw fail("invalid UTF-8") }
        let b1 = input[pos + 1]
        guard b1 >= lowerBound, b1 <= upperBound else { throw fail("invalid UTF-8") }
        for i in 2..<max(n, 2) where input[pos + i] & 0xC0 != 0x80 {
            throw fail("invalid UTF-8")
        }
        return n
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONParseError) {
        pos += 1  // backslash
        guard pos < input.count else { throw fail("unterminated string") }
        let c = input[pos]
        pos += 1
        switch c {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            var scalarValue: UInt32
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed at once by an escaped low surrogate.
                guard input.count - pos >= 6, input[pos] == UInt8(ascii: "\\"), input[pos + 1] == UInt8(ascii: "u") else {
                    throw fail("lone surrogate escape")
                }
                pos += 2
                let low = try parseHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw fail("lone surrogate escape") }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw fail("lone surrogate escape")
            } else {
                scalarValue = UInt32(unit)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw fail("invalid escape") }
            UTF8.encode(scalar) { out.append($0) }
        default:
            throw fail("invalid escape")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard input.count - pos >= 4 else { throw fail("invalid \\u escape") }
        var v: UInt16 = 0
        for _ in 0..<4 {
            let b = input[pos]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            v = v << 4 | UInt16(d)
            pos += 1
        }
        return v
    }
}
