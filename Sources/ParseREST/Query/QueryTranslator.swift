import Auth
import VideoRegistry
import JSON
import Storage

/// A Parse query for one class, as bound SQL for either database: the filter, the order an
/// index returns rows in, and the page. Visibility is not here: the reads add the domain's own
/// predicates (`Viewer.visibilityFilter`), so a Parse query can never widen what a caller sees.
struct TranslatedQuery: Sendable {
    /// The constraints joined with AND; `1 = 1` without any.
    let filter: SQL
    /// The ORDER BY list (trusted text from `ParseSchema`).
    let order: String
    let limit: Int
    let skip: Int
    let count: Bool
    /// The query names rows by a unique key: a handful at most, read by probing each.
    let byKey: Bool
    let keys: Set<String>?
    let include: Set<String>
}

/// Translates a `ParseQuery` for a `ParseSchema`: pure, no database. Every constraint becomes
/// a bound comparison on the field's column; the query must match one of the class's
/// `QueryPlan`s (its equalities constrained, its order one an index serves), else it is
/// refused with the queries that are supported, so no client query scans a table.
enum QueryTranslator {
    /// The pointers `include` may name, per class.
    static let includable: [String: Set<String>] = ["Video": ["owner", "rallyId"], "Activity": ["fromUser", "toUser", "video"]]

    /// `viewer` is whom a subquery's rows must be visible to (`QuerySubqueries`); `depth`, how
    /// deep in subqueries this query is.
    static func translate(_ query: ParseQuery, in schema: ParseSchema, viewer: Viewer = .anonymous, depth: Int = 0)
        throws(ParseQueryError) -> TranslatedQuery {
        for term in query.order { _ = try schema.field(term.field) }
        let common = try translate(query.constraints, schema, viewer: viewer, depth: depth)
        var filter = common.conditions.isEmpty ? SQL("1 = 1") : SQL.joined(common.conditions, separator: " AND ")
        let plan: (order: String, byKey: Bool)
        if query.alternatives.isEmpty {
            plan = try choosePlan(query, schema, equal: common.equal, listed: common.listed)
        } else {
            // `$or`: each branch, with the constraints beside it, must be a query a plan serves;
            // the database reads each branch's index range and merges them (SQLite's
            // multi-index OR, PostgreSQL's BitmapOr), sorted by the query's order.
            var branches: [SQL] = []
            var plans: [(order: String, byKey: Bool)] = []
            for alternative in query.alternatives {
                let branch = try translate(alternative, schema, viewer: viewer, depth: depth)
                plans.append(try choosePlan(query, schema, equal: common.equal.union(branch.equal), listed: common.listed.union(branch.listed)))
                branches.append(branch.conditions.isEmpty ? "1 = 1" : "(\(SQL.joined(branch.conditions, separator: " AND ")))")
            }
            filter = "\(filter) AND (\(SQL.joined(branches, separator: " OR ")))"
            plan = plans.first { !$0.byKey } ?? plans[0]
        }
        if let keys = query.keys { for key in keys where !schema.outputOnly.contains(key) { _ = try schema.field(key) } }
        let allowed = includable[schema.className] ?? []
        for name in query.include where !allowed.contains(name) { throw .cannotInclude(name) }
        let byKey = query.alternatives.isEmpty ? plan.byKey : false
        return TranslatedQuery(
            filter: filter, order: plan.order, limit: query.limit, skip: query.skip, count: query.count, byKey: byKey,
            keys: query.keys.map(Set.init), include: Set(query.include))
    }

    /// The constraints as bound conditions, with the fields they constrain by one value
    /// (`equal`, subqueries' keys included) and by a list (`listed`), which choose the plan.
    private static func translate(_ constraints: [ParseQuery.Constraint], _ schema: ParseSchema, viewer: Viewer, depth: Int)
        throws(ParseQueryError) -> (conditions: [SQL], equal: Set<String>, listed: Set<String>) {
        var conditions: [SQL] = []
        var equal = Set<String>()
        var listed = Set<String>()
        for constraint in constraints {
            let field = try schema.field(constraint.field)
            if constraint.op.isSubquery {
                conditions.append(try QuerySubqueries.condition(constraint, field, viewer: viewer, depth: depth))
                // The keys a subquery finds select rows as an equality does, one index range
                // per key (the database merges them); the `not` forms only filter.
                if constraint.op == .inQuery || constraint.op == .select { equal.insert(constraint.field) }
                continue
            }
            conditions.append(try condition(constraint, field))
            if constraint.op == .equal, constraint.value != .null { equal.insert(constraint.field) }
            if constraint.op == .within { listed.insert(constraint.field) }
        }
        // username_key carries the index (and the case-insensitive uniqueness); the equality
        // on username itself keeps Parse's exact match.
        if schema.className == "_User" {
            for constraint in constraints where constraint.field == "username" && constraint.op == .equal {
                if case .string(let name) = constraint.value { conditions.append("users.username_key = \(Validation.key(name))") }
            }
        }
        return (conditions, equal, listed)
    }

    /// The first plan whose equalities the query constrains and whose orders include the
    /// query's (a by-key plan sorts its handful of rows by any field).
    private static func choosePlan(_ query: ParseQuery, _ schema: ParseSchema, equal: Set<String>, listed: Set<String>)
        throws(ParseQueryError) -> (order: String, byKey: Bool) {
        for plan in schema.plans {
            let constrained = plan.byKey ? equal.union(listed) : equal
            guard plan.equalities.isSubset(of: constrained) else { continue }
            if plan.byKey {
                let terms = query.order.compactMap { term -> String? in
                    guard let field = schema.fields[term.field] else { return nil }
                    return field.column + (term.descending ? " DESC" : "")
                }
                return ((terms + ["\(schema.alias).id"]).joined(separator: ", "), true)
            }
            if query.order.isEmpty, let first = plan.orders.first { return (first.sql, false) }
            if let served = plan.orders.first(where: { $0.terms == query.order }) { return (served.sql, false) }
        }
        throw .unindexed(className: schema.className, supported: schema.supportedQueries)
    }

    // MARK: Constraints

    /// A value as the column stores it.
    enum Operand: Equatable {
        case text(String)
        case integer(Int64)
        /// A Date against a calendar-day column: compared as the instant of each day's midnight.
        case instant(Int64)
        case null
    }

    static func condition(_ constraint: ParseQuery.Constraint, _ field: ParseSchema.Field) throws(ParseQueryError) -> SQL {
        let column = field.column
        switch constraint.op {
        case .exists:
            // A NOT NULL field exists on every object.
            guard case .bool(let exists) = constraint.value else { throw .badConstraint(field: constraint.field, expected: "true or false") }
            if field.nullable { return exists ? "\(unsafe: column) IS NOT NULL" : "\(unsafe: column) IS NULL" }
            return exists ? "1 = 1" : "1 = 0"
        case .within, .notWithin:
            guard case .array(let values) = constraint.value, values.count <= ParseQuery.maxListValues else {
                throw .badConstraint(field: constraint.field, expected: "an array of at most \(ParseQuery.maxListValues) values")
            }
            var binds: [SQL] = []
            for value in values {
                switch try operand(value, field, constraint.field) {
                case .text(let text): binds.append("\(text)")
                case .integer(let number): binds.append("\(number)")
                case .instant(let millis):
                    // Only a midnight names a calendar day; other instants match no day.
                    if let day = exactDay(millis) { binds.append("\(Int64(day))") }
                case .null: break
                }
            }
            let negated = constraint.op == .notWithin
            guard !binds.isEmpty else { return negated ? "1 = 1" : "1 = 0" }
            let list = SQL.joined(binds, separator: ", ")
            return negated ? "\(unsafe: column) NOT IN (\(list))" : "\(unsafe: column) IN (\(list))"
        case .regex:
            return try prefix(constraint, field)
        case .inQuery, .notInQuery, .select, .dontSelect:
            throw .unsupportedOperator(field: constraint.field, op: constraint.op.rawValue)
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            let value = try operand(constraint.value, field, constraint.field)
            if value == .null, field.nullable, constraint.op == .equal || constraint.op == .notEqual {
                return constraint.op == .equal ? "\(unsafe: column) IS NULL" : "\(unsafe: column) IS NOT NULL"
            }
            return try comparison(column, constraint.op, value, constraint.field)
        }
    }

    private static func comparison(_ column: String, _ op: ParseQuery.Operator, _ value: Operand, _ name: String) throws(ParseQueryError) -> SQL {
        let symbol: String = switch op {
        case .equal: "="
        case .notEqual: "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        default: "="
        }
        switch value {
        case .null:
            // No served field is ever null: equal to null matches nothing, unequal everything.
            switch op {
            case .equal: return "1 = 0"
            case .notEqual: return "1 = 1"
            default: throw .badConstraint(field: name, expected: "a value to compare with, not null")
            }
        case .text(let text): return "\(unsafe: column) \(unsafe: symbol) \(text)"
        case .integer(let number): return "\(unsafe: column) \(unsafe: symbol) \(number)"
        case .instant(let millis):
            // Day d stands for the instant d * D. With f = floor(m / D): d*D > m iff d > f;
            // d*D <= m iff d <= f; d*D >= m and d*D < m move to f + 1 unless m is a midnight.
            let floor = millis.floorDivided(by: ParseDates.dayMillis)
            let exact = exactDay(millis) != nil
            switch op {
            case .equal: return exact ? "\(unsafe: column) = \(floor)" : "1 = 0"
            case .notEqual: return exact ? "\(unsafe: column) <> \(floor)" : "1 = 1"
            case .greater: return "\(unsafe: column) > \(floor)"
            case .lessOrEqual: return "\(unsafe: column) <= \(floor)"
            case .greaterOrEqual: return "\(unsafe: column) >= \(exact ? floor : floor + 1)"
            case .less: return "\(unsafe: column) < \(exact ? floor : floor + 1)"
            default: return "1 = 0"
            }
        }
    }

    /// `$regex` as an anchored literal prefix, `^abc` or the iOS SDK's `hasPrefix` form
    /// `^\Qabc\E`, on a text field: `substr(column, 1, n) = prefix` (n code points), the same on
    /// both databases, case-sensitive as a regex is. It filters the rows a plan's index selects
    /// and never selects rows itself, so it cannot make a query scan. Any other pattern is 102.
    private static func prefix(_ constraint: ParseQuery.Constraint, _ field: ParseSchema.Field) throws(ParseQueryError) -> SQL {
        guard field.type == .string, case .string(let pattern) = constraint.value,
              let prefix = literalPrefix(pattern) else {
            throw .unsupportedOperator(field: constraint.field, op: "$regex (other than an anchored literal prefix on a text field)")
        }
        if prefix.isEmpty { return "1 = 1" }
        // The length is a number this code counted, spliced as a literal: PostgreSQL has no
        // substr(text, integer, bigint) for a bound 64-bit parameter.
        return "substr(\(unsafe: field.column), 1, \(unsafe: String(prefix.unicodeScalars.count))) = \(prefix)"
    }

    /// The literal a `^...` pattern starts every match with, when the pattern is nothing else:
    /// `^\Q...\E`, or `^` and characters none of which is special (a `\` escapes one
    /// punctuation character). Nil for anything else.
    static func literalPrefix(_ pattern: String) -> String? {
        guard pattern.hasPrefix("^") else { return nil }
        let body = pattern.dropFirst()
        if body.hasPrefix("\\Q") {
            guard body.hasSuffix("\\E"), body.count >= 4 else { return nil }
            let literal = body.dropFirst(2).dropLast(2)
            return literal.contains("\\E") ? nil : String(literal)
        }
        var literal = ""
        var escaped = false
        for character in body {
            if escaped {
                guard character.isPunctuation || character.isSymbol else { return nil }
                literal.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if ".^$*+?()[]{}|".contains(character) {
                return nil
            } else {
                literal.append(character)
            }
        }
        return escaped ? nil : literal
    }

    private static func exactDay(_ millis: Int64) -> Int? {
        millis.floorModulo(by: ParseDates.dayMillis) == 0 ? Int(millis.floorDivided(by: ParseDates.dayMillis)) : nil
    }

    /// The value as the field's column stores it; a value of another type is 102.
    static func operand(_ value: JSONValue, _ field: ParseSchema.Field, _ name: String) throws(ParseQueryError) -> Operand {
        if value == .null { return .null }
        switch field.type {
        case .string:
            guard case .string(let text) = value else { throw .badConstraint(field: name, expected: "a string") }
            return .text(text)
        case .integer:
            guard let number = value.intValue else { throw .badConstraint(field: name, expected: "an integer") }
            return .integer(Int64(number))
        case .timestamp:
            guard let millis = ParseDates.millis(value) else { throw .badConstraint(field: name, expected: "a Date") }
            return .integer(millis)
        case .calendarDay:
            guard let millis = ParseDates.millis(value) else { throw .badConstraint(field: name, expected: "a Date") }
            return .instant(millis)
        case .pointer(let className):
            guard value["__type"]?.stringValue == "Pointer", value["className"]?.stringValue == className,
                  let id = value["objectId"]?.stringValue else {
                throw .badConstraint(field: name, expected: "a Pointer to \(className)")
            }
            return .text(id)
        }
    }
}

/// Parse's Date values (`{"__type": "Date", "iso": "2014-01-16T00:00:00.000Z"}`).
enum ParseDates {
    static let dayMillis: Int64 = 86_400_000

    /// The instant of a Date object, or of a plain ISO 8601 string (createdAt and updatedAt
    /// are plain strings in objects, and some clients send them so in queries).
    static func millis(_ value: JSONValue) -> Int64? {
        switch value {
        case .string(let text): return ISO8601Millis.parse(text)
        case .object:
            guard value["__type"]?.stringValue == "Date", let iso = value["iso"]?.stringValue else { return nil }
            return ISO8601Millis.parse(iso)
        default: return nil
        }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (dates before 1970 included).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(by divisor: Int64) -> Int64 {
        self - floorDivided(by: divisor) * divisor
    }
}
