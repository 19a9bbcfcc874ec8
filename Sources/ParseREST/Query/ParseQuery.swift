import JSON

/// A find's parameters as parse-server reads them (`ClassesRouter.optionsFromBody`,
/// PARSE-REST.md §1.4), typed and checked, before any class is consulted: numbers may come as
/// numeric strings (the iOS SDK sends `"limit": "10"`), `where` as an object or a JSON string.
struct ParseQuery: Sendable, Equatable {
    var constraints: [Constraint] = []
    /// `$or`'s branches, each a list of constraints (ANDed), beside `constraints`.
    var alternatives: [[Constraint]] = []
    var order: [QueryPlan.OrderTerm] = []
    /// 100 unless given; at most `maxLimit`. `0` with `count` is the count-only form.
    var limit = 100
    var skip = 0
    /// The fields to return besides objectId, createdAt and updatedAt; nil: all.
    var keys: [String]?
    /// Pointers to return as the objects they point to, one level deep.
    var include: [String] = []
    var count = false

    /// Parse.com documented "default 100, maximum 1000" (iOS `PFQuery.h` @1.8.0).
    static let maxLimit = 1_000
    /// An offset costs the rows it skips: capped, and documented (docs/parse-migration.md).
    static let maxSkip = 10_000
    /// The values of one `$in` or `$nin`: each is a bound parameter.
    static let maxListValues = 100
    /// The branches of one `$or`: each is an index range to read.
    static let maxAlternatives = 10

    struct Constraint: Sendable, Equatable {
        let field: String
        let op: Operator
        let value: JSONValue
    }

    enum Operator: String, Sendable, CaseIterable {
        case equal = "$eq", notEqual = "$ne", less = "$lt", lessOrEqual = "$lte", greater = "$gt", greaterOrEqual = "$gte"
        case within = "$in", notWithin = "$nin", exists = "$exists"
        /// Subqueries (`QuerySubqueries`): the pointers a query of another class finds, or the
        /// values of one of its fields; the `not` forms exclude them.
        case inQuery = "$inQuery", notInQuery = "$notInQuery", select = "$select", dontSelect = "$dontSelect"
        /// An anchored literal prefix only (`^abc`, or the iOS SDK's `^\Qabc\E`), as a filter.
        case regex = "$regex"

        var isSubquery: Bool { [.inQuery, .notInQuery, .select, .dontSelect].contains(self) }
    }

    /// What the parameters are for: a find (`GET /classes/C`) takes them all; a get by id only
    /// `keys` and `include` (anything else is 102, as parse-server's "Improper encode of parameter").
    enum Purpose: Sendable {
        case find, get
    }

    /// The keys parse-server's find accepts that this server does not serve: 102, not ignored.
    static let unsupportedKeys: Set<String> = [
        "excludeKeys", "includeAll", "redirectClassNameForKey", "readPreference", "includeReadPreference",
        "subqueryReadPreference", "hint", "explain", "comment",
    ]

    static func parse(_ parameters: [String: JSONValue], for purpose: Purpose) throws(ParseQueryError) -> ParseQuery {
        var query = ParseQuery()
        let allowed: Set<String> = purpose == .find ? ["where", "order", "limit", "skip", "keys", "include", "count"] : ["keys", "include"]
        // Sorted, so that of two faults the same one is reported every time.
        for name in parameters.keys.sorted() where !allowed.contains(name) {
            throw unsupportedKeys.contains(name) || (purpose == .get && ["where", "order", "limit", "skip", "count"].contains(name))
                ? .unsupportedParameter(name) : .invalidParameter(name)
        }
        if let value = parameters["limit"] { query.limit = try integer(value, "limit", in: 0...maxLimit) }
        if let value = parameters["skip"] { query.skip = try integer(value, "skip", in: 0...maxSkip) }
        if let value = parameters["count"] { query.count = try truthy(value) }
        if let value = parameters["keys"] { query.keys = try names(value, "keys") }
        if let value = parameters["include"] { query.include = try names(value, "include") }
        if let value = parameters["order"] {
            for term in try names(value, "order") {
                let descending = term.hasPrefix("-")
                let field = descending ? String(term.dropFirst()) : term
                try checkKeyName(field)
                query.order.append(QueryPlan.OrderTerm(field: field, descending: descending))
            }
        }
        if let value = parameters["where"] { (query.constraints, query.alternatives) = try constraintsAndAlternatives(value) }
        return query
    }

    /// `^[A-Za-z][0-9A-Za-z_]*$`, parse-server's rule for a field name (DatabaseController.js).
    static func checkKeyName(_ name: String) throws(ParseQueryError) {
        let bytes = Array(name.utf8)
        let isLetter: (UInt8) -> Bool = { (65...90).contains($0) || (97...122).contains($0) }
        guard let first = bytes.first, isLetter(first),
              bytes.dropFirst().allSatisfy({ isLetter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") }) else {
            throw .invalidKeyName(name)
        }
    }

    private static func integer(_ value: JSONValue, _ name: String, in range: ClosedRange<Int>) throws(ParseQueryError) -> Int {
        let number: Int? = switch value {
        case .string(let text): Int(text)
        default: value.intValue
        }
        guard let number, range.contains(number) else {
            throw .invalidValue(parameter: name, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// parse-server adds the count for any truthy value; the SDKs send `1` or `"1"`.
    private static func truthy(_ value: JSONValue) throws(ParseQueryError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .int(let number): return number != 0
        case .string(let text) where ["1", "true"].contains(text): return true
        case .string(let text) where ["0", "false", ""].contains(text): return false
        default: throw .invalidValue(parameter: "count", expected: "1 or 0")
        }
    }

    /// A comma-separated list (or an array of strings), empty items dropped.
    private static func names(_ value: JSONValue, _ name: String) throws(ParseQueryError) -> [String] {
        let items: [String]
        switch value {
        case .string(let text): items = text.split(separator: ",").map { String($0).trimmingSpaces }
        case .array(let values):
            var strings: [String] = []
            for value in values {
                guard let text = value.stringValue else { throw .invalidValue(parameter: name, expected: "a comma-separated list of field names") }
                strings.append(text)
            }
            items = strings
        default: throw .invalidValue(parameter: name, expected: "a comma-separated list of field names")
        }
        return items.filter { !$0.isEmpty }
    }

    /// A `where`, and its `$or` branches (one level: a `$or` inside a branch is 102).
    private static func constraintsAndAlternatives(_ value: JSONValue) throws(ParseQueryError) -> ([Constraint], [[Constraint]]) {
        var document = value
        if case .string(let text) = value {
            guard let parsed = try? JSONValue.parse(Array(text.utf8)) else { throw .invalidValue(parameter: "where", expected: "a JSON object") }
            document = parsed
        }
        guard case .object(var members) = document, let or = members.removeValue(forKey: "$or") else { return (try constraints(document), []) }
        guard case .array(let branches) = or, (1...maxAlternatives).contains(branches.count) else {
            throw .badConstraint(field: "$or", expected: "an array of 1 to \(maxAlternatives) queries")
        }
        var alternatives: [[Constraint]] = []
        for branch in branches {
            guard case .object = branch else { throw .badConstraint(field: "$or", expected: "an array of query objects") }
            alternatives.append(try constraints(branch))
        }
        return (try constraints(.object(members)), alternatives)
    }

    private static func constraints(_ value: JSONValue) throws(ParseQueryError) -> [Constraint] {
        var document = value
        if case .string(let text) = value {
            guard let parsed = try? JSONValue.parse(Array(text.utf8)) else {
                throw .invalidValue(parameter: "where", expected: "a JSON object")
            }
            document = parsed
        }
        guard case .object(let members) = document else { throw .invalidValue(parameter: "where", expected: "a JSON object") }
        var result: [Constraint] = []
        for field in members.keys.sorted() {
            guard let constraint = members[field] else { continue }
            // `$and`, `$nor`, `$relatedTo`, and a `$or` within a `$or`: not served.
            if field.hasPrefix("$") { throw .unsupportedOperator(field: "where", op: field) }
            try checkKeyName(field)
            result += try self.constraints(on: field, constraint)
        }
        return result
    }

    /// A plain value or a typed one (`__type`) is equality; an object of `$` keys is operators.
    private static func constraints(on field: String, _ value: JSONValue) throws(ParseQueryError) -> [Constraint] {
        guard case .object(let members) = value, members["__type"] == nil else {
            if case .array = value { throw .badConstraint(field: field, expected: "a single value (arrays are matched with $in)") }
            return [Constraint(field: field, op: .equal, value: value)]
        }
        var result: [Constraint] = []
        for key in members.keys.sorted() {
            guard let operand = members[key] else { continue }
            guard key.hasPrefix("$") else { throw .badConstraint(field: field, expected: "a value, a Pointer, a Date or an object of operators") }
            // `$options` qualifies a `$regex`: only no options are served (a case-insensitive
            // match would need an index of its own).
            if key == "$options" {
                guard members["$regex"] != nil, operand == .string("") else { throw .unsupportedOperator(field: field, op: key) }
                continue
            }
            guard let op = Operator(rawValue: key) else { throw .unsupportedOperator(field: field, op: key) }
            result.append(Constraint(field: field, op: op, value: operand))
        }
        return result
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
