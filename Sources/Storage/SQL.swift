/// The SQL dialects the storage drivers speak.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres
}

/// A SQL statement whose interpolated values become bound parameters.
///
/// Written once for both dialects: `"SELECT * FROM users WHERE id = \(id)"` renders as
/// `… WHERE id = ?` for SQLite and `… WHERE id = $1` for PostgreSQL, with `id` bound.
/// A value can never be spliced into the text by accident; trusted fragments (identifiers
/// chosen by the program, never by input) go through `\(unsafe: …)`.
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    enum Fragment: Sendable {
        case text(String)
        case bind(DatabaseValue)
    }

    var fragments: [Fragment]

    public init(stringLiteral value: String) {
        fragments = [.text(value)]
    }

    public init(stringInterpolation: StringInterpolation) {
        fragments = stringInterpolation.fragments
    }

    /// Trusted SQL text, such as a migration file. Never build it from input.
    public init(unsafeSQL text: String) {
        fragments = [.text(text)]
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var fragments: [Fragment] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            fragments.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            fragments.append(.text(literal))
        }

        /// A bound value.
        public mutating func appendInterpolation(_ value: some DatabaseValueConvertible) {
            fragments.append(.bind(value.databaseValue))
        }

        /// Another SQL fragment, its binds kept as binds.
        public mutating func appendInterpolation(_ sql: SQL) {
            fragments.append(contentsOf: sql.fragments)
        }

        /// Trusted text spliced as is (identifiers and keywords chosen by the program).
        public mutating func appendInterpolation(unsafe text: String) {
            fragments.append(.text(text))
        }
    }

    /// Appends another fragment.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var result = lhs
        result.fragments.append(contentsOf: rhs.fragments)
        return result
    }

    /// Joins fragments with a separator, such as `", "` or `" AND "`.
    public static func joined(_ parts: [SQL], separator: String) -> SQL {
        var result = SQL(unsafeSQL: "")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.fragments.append(.text(separator)) }
            result.fragments.append(contentsOf: part.fragments)
        }
        return result
    }

    /// The text for the dialect and the values to bind, in order.
    public func render(for dialect: SQLDialect) -> (text: String, binds: [DatabaseValue]) {
        var text = ""
        var binds: [DatabaseValue] = []
        // One allocation for the text: a feed's statement is ~100 fragments and 2-3 KiB.
        text.reserveCapacity(fragments.reduce(0) { size, fragment in
            if case .text(let t) = fragment { return size + t.utf8.count }
            return size + 4
        })
        for fragment in fragments {
            switch fragment {
            case .text(let t):
                text += t
            case .bind(let value):
                binds.append(value)
                switch dialect {
                case .sqlite: text += "?"
                case .postgres: text += "$\(binds.count)"
                }
            }
        }
        return (text, binds)
    }

    /// The statement text with placeholders; bound values are deliberately left out so that
    /// passwords, tokens or personal data never reach an error message or a log line.
    public var description: String { render(for: .sqlite).text }
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
