import JSON

/// A create's or update's body for one class, checked against the fields the class takes
/// (PARSE-REST.md §1.5): every other field is 105, a value of the wrong type 111 (parse-server's
/// "schema mismatch"), and the fields the server owns (`ignored`: counters, ACL) are dropped,
/// whether sent as values or as operations (`Increment`). Nothing else is silently ignored.
struct WriteBody {
    let className: String
    let fields: [String: JSONValue]

    /// Fields parse-server sets itself and drops from a body.
    static let builtIn: Set<String> = ["createdAt", "updatedAt"]

    init(_ body: [String: JSONValue], className: String, writable: Set<String>, ignored: Set<String>) throws {
        self.className = className
        var fields: [String: JSONValue] = [:]
        for name in body.keys.sorted() {
            guard let value = body[name] else { continue }
            if ignored.contains(name) || Self.builtIn.contains(name) { continue }
            if name == "objectId" { throw ParseError(.invalidKeyName, "objectId is an invalid field name.") }
            do { try ParseQuery.checkKeyName(name) } catch { throw ParseErrors.map(error) }
            guard writable.contains(name) else {
                throw ParseError(.invalidKeyName, "\(className) has no field \(name) this server writes.")
            }
            fields[name] = value
        }
        self.fields = fields
    }

    /// A string field: a string, or `{"__op":"Delete"}` (or null), which empties it.
    func string(_ name: String) throws -> String? {
        switch fields[name] {
        case nil: return nil
        case .string(let text)?: return text
        case .null?: return ""
        case let value? where Self.isDelete(value): return ""
        case let value?: throw mismatch(name, expected: "String", value)
        }
    }

    /// An integer field.
    func integer(_ name: String) throws -> Int? {
        guard let value = fields[name] else { return nil }
        if case .int = value, let number = value.intValue { return number }
        if case .double = value, let number = value.intValue { return number }
        if case .object = value, value["__op"] != nil {
            throw ParseError(.validationError, "The operation \(value["__op"]?.stringValue ?? "") on \(className).\(name) is not supported by this server.")
        }
        throw mismatch(name, expected: "Number", value)
    }

    /// A Pointer field to `target`: the objectId it points to.
    func pointer(_ name: String, to target: String) throws -> String? {
        guard let value = fields[name] else { return nil }
        guard value["__type"]?.stringValue == "Pointer", value["className"]?.stringValue == target,
              let id = value["objectId"]?.stringValue, !id.isEmpty else {
            throw mismatch(name, expected: "Pointer<\(target)>", value)
        }
        return id
    }

    func required<T>(_ value: T?, _ name: String) throws -> T {
        guard let value else { throw ParseError(.validationError, "\(className).\(name) is required.") }
        return value
    }

    private static func isDelete(_ value: JSONValue) -> Bool {
        value["__op"]?.stringValue == "Delete"
    }

    private func mismatch(_ name: String, expected: String, _ value: JSONValue) -> ParseError {
        let got: String = switch value {
        case .null: "null"
        case .bool: "Boolean"
        case .int, .double: "Number"
        case .string: "String"
        case .array: "Array"
        case .object:
            if let type = value["__type"]?.stringValue { type } else if let op = value["__op"]?.stringValue { "the operation \(op)" } else { "Object" }
        }
        return ParseError(.incorrectType, "schema mismatch for \(className).\(name); expected \(expected) but got \(got)")
    }
}
