/// The SQL dialects the storage drivers speak.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The column type of a 64-bit integer (milliseconds since the epoch, say).
    var int64ColumnType: String {
        switch self {
        case .sqlite: return "INTEGER"  // always 64-bit
        case .postgres: return "BIGINT"  // INTEGER is 32-bit
        }
    }
}

/// A SQL statement whose interpolated values become bound parameters.
///
/// Written once for both dialects: `"SELECT * FROM users WHERE id = \(id)"` renders as
/// `… WHERE id = ?` for SQLite and `… WHERE id = $1` for PostgreSQL, with `id` bound.
/// A value can never be spliced into the text by accident; trusted fragments (identifiers
/// chosen by the program, never by input) go through `\(unsafe: …)`.
///
/// The literal parts are `StaticString`s, so a statement also knows its `shape` without
/// rendering its text: the addresses of its literals (read-only data of the binary, so one
/// address always holds the same text), its run-time text, and where its binds go. A driver
/// finds its prepared statement by shape; rendering 2-3 KiB of text and hashing it on every
/// request cost a read by id a tenth of its CPU. An interpolated statement is kept whole
/// (`nested`), not copied fragment by fragment, so parts built once (`static let` column
/// lists) cost nothing to reuse.
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    @usableFromInline package enum Fragment: Sendable {
        /// Text written in the program's source.
        case literal(StaticString)
        /// Trusted text made at run time (`unsafe:`, `unsafeSQL:`).
        case text(String)
        case bind(DatabaseValue)
        /// Another statement's fragments, in place.
        case nested(SQL)
    }

    @usableFromInline package var fragments: [Fragment]
    /// The hash of the shape, kept up to date as fragments are appended.
    package var shape = Shape()

    public init(stringLiteral value: StaticString) {
        fragments = []
        append(literal: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        fragments = stringInterpolation.sql.fragments
        shape = stringInterpolation.sql.shape
    }

    /// Trusted SQL text, such as a migration file. Never build it from input.
    public init(unsafeSQL text: String) {
        fragments = []
        append(text: text)
    }

    private init(fragments: [Fragment]) {
        self.fragments = fragments
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = SQL(fragments: [])

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.fragments.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            sql.append(literal: literal)
        }

        /// A bound value.
        public mutating func appendInterpolation(_ value: some DatabaseValueConvertible) {
            sql.append(bind: value.databaseValue)
        }

        /// Another SQL fragment, its binds kept as binds.
        public mutating func appendInterpolation(_ other: SQL) {
            sql.append(other)
        }

        /// Trusted text spliced as is (identifiers and keywords chosen by the program).
        public mutating func appendInterpolation(unsafe text: String) {
            sql.append(text: text)
        }
    }

    /// Appends another fragment.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// Joins fragments with a separator, such as `", "` or `" AND "`.
    public static func joined(_ parts: [SQL], separator: StaticString) -> SQL {
        var result = SQL(fragments: [])
        for (index, part) in parts.enumerated() {
            if index > 0 { result.append(literal: separator) }
            result.append(part)
        }
        return result
    }

    private mutating func append(literal: StaticString) {
        // A one-character literal may come as a unicode scalar, which has no address.
        guard literal.hasPointerRepresentation else { return append(text: literal.description) }
        guard literal.utf8CodeUnitCount > 0 else { return }
        fragments.append(.literal(literal))
        shape.append(Shape.token(literal))
    }

    private mutating func append(text: String) {
        guard !text.isEmpty else { return }
        fragments.append(.text(text))
        shape.append(Shape.token(text))
    }

    private mutating func append(bind value: DatabaseValue) {
        fragments.append(.bind(value))
        shape.append(Shape.bindToken)
    }

    private mutating func append(_ other: SQL) {
        switch other.fragments.count {
        case 0: return
        case 1: fragments.append(other.fragments[0])
        default: fragments.append(.nested(other))
        }
        shape.append(other.shape)
    }

    /// Calls `body` with every literal, text and bind in order, nested statements flattened;
    /// stops early when `body` answers false, and answers whether it went through.
    @discardableResult @inlinable
    package func forEachFragment(_ body: (Fragment) -> Bool) -> Bool {
        for fragment in fragments {
            if case .nested(let inner) = fragment {
                if !inner.forEachFragment(body) { return false }
            } else if !body(fragment) {
                return false
            }
        }
        return true
    }

    /// The text for the dialect and the values to bind, in order.
    public func render(for dialect: SQLDialect) -> (text: String, binds: [DatabaseValue]) {
        var bytes: [UInt8] = []
        var binds: [DatabaseValue] = []
        // A feed's statement is ~100 fragments and 2-3 KiB: room for most at once.
        bytes.reserveCapacity(4_096)
        forEachFragment { fragment in
            switch fragment {
            case .literal(let l):
                l.withUTF8Buffer { bytes.append(contentsOf: $0) }
            case .text(let t):
                bytes.append(contentsOf: t.utf8)
            case .bind(let value):
                binds.append(value)
                switch dialect {
                case .sqlite: bytes.append(UInt8(ascii: "?"))
                case .postgres: bytes.append(contentsOf: "$\(binds.count)".utf8)
                }
            case .nested:
                break  // flattened by forEachFragment
            }
            return true
        }
        return (String(decoding: bytes, as: UTF8.self), binds)
    }

    /// The statement text with placeholders; bound values are deliberately left out so that
    /// passwords, tokens or personal data never reach an error message or a log line.
    public var description: String { render(for: .sqlite).text }
}

extension SQL {
    /// A statement's shape: its fragments with the bound values left out. Two statements of one
    /// shape render the same text in every dialect, so a driver may key prepared statements by
    /// it. Compared exactly (`matches`); `hash` only narrows the search.
    package struct Shape: Sendable {
        /// A polynomial hash of the fragment tokens, so that appending a whole statement combines
        /// its hash in O(1): hash(a + b) = hash(a) * power(b) + hash(b).
        package private(set) var hash: UInt64 = 0
        /// multiplier^(fragment count), mod 2^64.
        private(set) var power: UInt64 = 1

        private static let multiplier: UInt64 = 0x100_0000_01B3  // FNV-1a's 64-bit prime
        static let bindToken: UInt64 = 0x9E37_79B9_7F4A_7C15

        mutating func append(_ token: UInt64) {
            hash = hash &* Self.multiplier &+ token
            power = power &* Self.multiplier
        }

        mutating func append(_ other: Shape) {
            hash = hash &* other.power &+ other.hash
            power = power &* other.power
        }

        static func token(_ literal: StaticString) -> UInt64 {
            mix(UInt64(UInt(bitPattern: literal.utf8Start)) ^ (UInt64(literal.utf8CodeUnitCount) << 48))
        }

        static func token(_ text: String) -> UInt64 {
            mix(UInt64(UInt(bitPattern: text.hashValue)) ^ 0x5555_5555_5555_5555)
        }

        /// splitmix64's finalizer: addresses differ in few bits, the hash should not.
        private static func mix(_ x: UInt64) -> UInt64 {
            var z = x &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One fragment of a shape as a driver's cache keeps it: no bound value is kept.
    @usableFromInline package enum ShapePart: Sendable {
        /// The literal's address and length.
        case literal(UInt, Int)
        case text(String)
        case bind
    }

    /// The shape's parts, for a driver to store next to its prepared statement.
    @inlinable package var shapeParts: [ShapePart] {
        var parts: [ShapePart] = []
        forEachFragment { fragment in
            switch fragment {
            case .literal(let l): parts.append(.literal(UInt(bitPattern: l.utf8Start), l.utf8CodeUnitCount))
            case .text(let t): parts.append(.text(t))
            case .bind: parts.append(.bind)
            case .nested: break  // flattened by forEachFragment
            }
            return true
        }
        return parts
    }

    /// Whether this statement has the shape `parts` (so renders the text they were stored with).
    ///
    /// `bind` is handed each bound value with its 1-based position as the walk meets it, so a
    /// driver binds in the same pass that finds its statement (two walks over every fragment
    /// were 3 to 4% of a read by id). On a mismatch some values may have been handed over already.
    @inlinable package func matches(_ parts: [ShapePart], binding bind: (Int32, DatabaseValue) -> Void = { _, _ in }) -> Bool {
        var index = 0
        var position: Int32 = 0
        let same = forEachFragment { fragment in
            guard index < parts.count else { return false }
            defer { index += 1 }
            switch (fragment, parts[index]) {
            case (.literal(let l), .literal(let address, let count)):
                return UInt(bitPattern: l.utf8Start) == address && l.utf8CodeUnitCount == count
            case (.text(let t), .text(let stored)):
                return t == stored
            case (.bind(let value), .bind):
                position += 1
                bind(position, value)
                return true
            default:
                return false
            }
        }
        return same && index == parts.count
    }
}

extension SQL {
    /// A JSON object the database builds from columns, as text: SQLite's `json_object`,
    /// PostgreSQL's `json_build_object` (whose `json` result is cast to text, the type the
    /// outbox's payload column holds). There is no spelling both understand.
    ///
    /// Keys are the program's own and are spliced as SQL string literals (PostgreSQL cannot
    /// infer the type of a bound key of this variadic function), so each must be plain
    /// letters, digits or `_`; values are fragments with their own binds.
    public static func jsonObject(_ fields: KeyValuePairs<String, SQL>, for dialect: SQLDialect) -> SQL {
        let pairs = fields.map { key, value -> SQL in
            precondition(!key.isEmpty && key.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) },
                         "a JSON key spliced into SQL must be letters, digits or _")
            return "'\(unsafe: key)', \(value)"
        }
        let arguments = joined(pairs, separator: ", ")
        switch dialect {
        case .sqlite: return "json_object(\(arguments))"
        case .postgres: return "json_build_object(\(arguments))::text"
        }
    }
}
