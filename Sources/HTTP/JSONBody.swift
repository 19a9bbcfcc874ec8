import JSON

/// A request body that must be a JSON object, with typed accessors that throw the API.md
/// errors: a wrong type is 400 `validation_failed` naming the field.
///
/// `null` counts as absent for the optional accessors (`string`, `int`, ...); `has` tells a
/// present `null` from a missing key (PATCH semantics).
public struct JSONBody: Sendable {
    /// The object's members.
    public let raw: [String: JSONValue]

    public init(_ raw: [String: JSONValue]) {
        self.raw = raw
    }

    /// Parses `request.body`. Empty or non-object -> 400 `bad_request` "Request body must be a
    /// JSON object."; malformed JSON (invalid UTF-8, lone surrogates, depth > 64, an object
    /// with a key twice at any depth, ...) -> 400 `bad_request` with a short reason that never
    /// echoes the input. Duplicates are refused rather than the last one winning (API.md): a
    /// proxy that reads the first would otherwise check another request than the one served.
    public static func parse(_ request: Request) throws(APIError) -> JSONBody {
        guard !request.body.isEmpty else { throw APIError.badRequest("Request body must be a JSON object.") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body, duplicateKeys: .refuse)
        } catch {
            throw APIError.badRequest("Malformed JSON: \(error.reason).")
        }
        guard case .object(let members) = value else { throw APIError.badRequest("Request body must be a JSON object.") }
        return JSONBody(members)
    }

    /// True when `key` is present, even as `null`.
    public func has(_ key: String) -> Bool { raw[key] != nil }

    func present(_ key: String) -> JSONValue? {
        guard let v = raw[key], v != .null else { return nil }
        return v
    }

    /// The string at `key`, nil when absent or null; a non-string is 400 `validation_failed`.
    public func string(_ key: String) throws(APIError) -> String? {
        guard let v = present(key) else { return nil }
        guard case .string(let s) = v else { throw APIError.validation(key, "\(key) must be a string.") }
        return s
    }

    /// The string at `key`; missing or wrong type is 400 `validation_failed`.
    public func requireString(_ key: String) throws(APIError) -> String {
        guard let s = try string(key) else { throw APIError.validation(key, "\(key) is required.") }
        return s
    }

    /// The integer at `key` (an integral number), nil when absent or null. A whole number too
    /// large for an integer, however spelled (`1e400`, `1e20`), is out of range, not malformed.
    public func int(_ key: String) throws(APIError) -> Int? {
        guard let v = present(key) else { return nil }
        if let i = v.intValue { return i }
        if case .double(let d) = v, d.isInfinite || d == d.rounded() {
            throw APIError.validation(key, "\(key) is out of range.")
        }
        throw APIError.validation(key, "\(key) must be an integer.")
    }

    /// The integer at `key`; missing or wrong type is 400 `validation_failed`.
    public func requireInt(_ key: String) throws(APIError) -> Int {
        guard let i = try int(key) else { throw APIError.validation(key, "\(key) is required.") }
        return i
    }

    /// The boolean at `key`, nil when absent or null.
    public func bool(_ key: String) throws(APIError) -> Bool? {
        guard let v = present(key) else { return nil }
        guard case .bool(let b) = v else { throw APIError.validation(key, "\(key) must be a boolean.") }
        return b
    }

    /// The nested object at `key`, nil when absent or null.
    public func object(_ key: String) throws(APIError) -> JSONBody? {
        guard let v = present(key) else { return nil }
        guard case .object(let o) = v else { throw APIError.validation(key, "\(key) must be an object.") }
        return JSONBody(o)
    }
}

/// The integer query parameter `name`, `default` when absent or empty; not a number or outside
/// `range` is 400 `validation_failed` with `field` = `name`.
public func queryInt(_ request: Request, _ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws(APIError) -> Int {
    guard let text = request.query[name], !text.isEmpty else { return defaultValue }
    guard let value = Int(text) else { throw APIError.validation(name, "\(name) must be an integer.") }
    guard range.contains(value) else {
        throw APIError.validation(name, "\(name) must be between \(range.lowerBound) and \(range.upperBound).")
    }
    return value
}
