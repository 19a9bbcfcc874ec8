import Auth
import VideoRegistry
import JSON
import Storage

/// `$inQuery`, `$notInQuery`, `$select` and `$dontSelect` (PARSE-REST.md §1.4) as a bound SQL
/// subquery: `column IN (SELECT key FROM ... WHERE ... LIMIT n)`. parse-server runs the
/// subquery first and substitutes its results as `$in`; here the database does both in one
/// statement and one snapshot.
///
/// The subquery is a query of its own class translated by the same rules: it must match one
/// of that class's `QueryPlan`s (so its rows come from an index range, never a scan), it sees
/// only what the caller may see (`ClassReads.visibility`), and it reads at most its `limit`
/// rows (1,000 when it gives none: parse-server's subqueries are unbounded, this server's are
/// not). The shapes the original app sends: "the people I follow" as
/// `{"$select": {"query": {"className": "Activity", "where": {"fromUser": me, "type": 4}}, "key": "toUser"}}`
/// on a `_User` pointer (their videos by `owner`, their activities by `fromUser`), and
/// `{"$inQuery": {"className": "Video", "where": {"owner": me}}}` on `video` (activity on my videos).
enum QuerySubqueries {
    /// A subquery within a subquery is served; deeper is 102.
    static let maxDepth = 2
    /// The keys a subquery without a `limit` reads at most.
    static let defaultLimit = ParseQuery.maxLimit

    static func condition(_ constraint: ParseQuery.Constraint, _ field: ParseSchema.Field, viewer: Viewer, depth: Int)
        throws(ParseQueryError) -> SQL {
        let op = constraint.op
        guard depth < maxDepth else { throw .unsupportedOperator(field: constraint.field, op: "\(op.rawValue) nested more than \(maxDepth) deep") }
        let (parameters, keyName) = try shape(constraint)
        guard case .string(let className)? = parameters["className"] else { throw improper(constraint) }
        guard let schema = ParseSchema.byClassName[className] else {
            throw .badConstraint(field: constraint.field, expected: "a subquery of a class this server serves, not \(className)")
        }
        var inner = parameters
        inner["className"] = nil
        let query = try ParseQuery.parse(inner, for: .find)
        if !query.include.isEmpty || query.count { throw .badConstraint(field: constraint.field, expected: "a subquery without include or count") }
        let translated = try QueryTranslator.translate(query, in: schema, viewer: viewer, depth: depth + 1)
        // The key the subquery answers must be of the outer field's type: a Pointer to the
        // class for $inQuery (its objectId), the same type for $select.
        let key: ParseSchema.Field
        if let keyName {
            key = try schema.field(keyName)
            guard key.type == field.type else {
                throw .badConstraint(field: constraint.field, expected: "a $select key of the same type as \(constraint.field)")
            }
        } else {
            guard field.type == .pointer(className) else {
                throw .badConstraint(field: constraint.field, expected: "an $inQuery of the class \(constraint.field) points to")
            }
            key = try schema.field("objectId")
        }
        let limit = inner["limit"] == nil ? defaultLimit : query.limit
        let negated = op == .notInQuery || op == .dontSelect
        // NOT IN over a NULL is unknown for every row: a nullable key's NULLs are left out.
        let nonNull: SQL = key.nullable ? "\(unsafe: key.column) IS NOT NULL AND " : ""
        let subquery: SQL = """
            SELECT \(unsafe: key.column) FROM \(unsafe: schema.table) WHERE \(nonNull)\(translated.filter) \
            AND \(ClassReads.visibility(schema, viewer, translated.byKey)) ORDER BY \(unsafe: translated.order) \
            LIMIT \(limit) OFFSET \(translated.skip)
            """
        guard negated else { return "\(unsafe: field.column) IN (\(subquery))" }
        // An object without the field is not among the keys (Parse's `$nin` of a missing field).
        return field.nullable
            ? "(\(unsafe: field.column) IS NULL OR \(unsafe: field.column) NOT IN (\(subquery)))"
            : "\(unsafe: field.column) NOT IN (\(subquery))"
    }

    /// The subquery's parameters and, for `$select`, the key: parse-server's shapes, else 102
    /// "improper usage". `$select` is exactly `{query, key}`; `$inQuery` is the query itself,
    /// with `className` (the iOS SDK leaves `where` out when it has no constraint).
    private static func shape(_ constraint: ParseQuery.Constraint) throws(ParseQueryError) -> ([String: JSONValue], String?) {
        guard case .object(let members) = constraint.value else { throw improper(constraint) }
        switch constraint.op {
        case .select, .dontSelect:
            guard Set(members.keys) == ["query", "key"], case .object(let query)? = members["query"],
                  case .string(let key)? = members["key"] else { throw improper(constraint) }
            return (query, key)
        default:
            return (members, nil)
        }
    }

    private static func improper(_ constraint: ParseQuery.Constraint) -> ParseQueryError {
        .badConstraint(field: constraint.field, expected: constraint.op == .select || constraint.op == .dontSelect
            ? "{\"query\": {\"className\": ..., \"where\": ...}, \"key\": ...} (improper usage of \(constraint.op.rawValue))"
            : "{\"className\": ..., \"where\": ...} (improper usage of \(constraint.op.rawValue))")
    }
}
