import CPostgres
import Storage

/// A libpq connection string (a `postgres://` URI or `key=value` pairs) read by libpq itself
/// (`PQconninfoParse`), so that every form libpq accepts (several hosts, percent-escapes,
/// query parameters) is understood the way the server's client will understand it.
///
/// For handing a connection to another program (`pg_dump`) without its password on the
/// command line, where every user of the machine can read it: `withoutPassword` goes in the
/// arguments, `password` in the child's environment (`PGPASSWORD`).
public struct PostgresConnectionInfo: Sendable, Equatable {
    /// The options that were set, in libpq's order, the password left out.
    public let options: [(keyword: String, value: String)]
    public let password: String?

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.password == rhs.password && lhs.options.map(\.keyword) == rhs.options.map(\.keyword) && lhs.options.map(\.value) == rhs.options.map(\.value)
    }

    /// Why a text is not a connection string, in libpq's words (which never quote a password).
    public struct Invalid: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "not a PostgreSQL connection string: \(reason)" }
    }

    /// Parses `text` as libpq does.
    public init(parsing text: String) throws(Invalid) {
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(text, &message) else {
            let reason = message.map { String(cString: $0) } ?? "libpq could not parse it"
            if let message { PQfreemem(message) }
            throw Invalid(reason: reason.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer { PQconninfoFree(parsed) }
        var options: [(keyword: String, value: String)] = []
        var password: String?
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let name = String(cString: keyword)
                if name == "password" { password = String(cString: value) } else { options.append((name, String(cString: value))) }
            }
            option += 1
        }
        self.options = options
        self.password = password
    }

    /// The `key='value'` form without the password, values quoted as libpq reads them
    /// (`'` and `\` escaped with `\`).
    public var withoutPassword: String {
        options.map { option in
            let escaped = option.value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            return "\(option.keyword)='\(escaped)'"
        }.joined(separator: " ")
    }
}
