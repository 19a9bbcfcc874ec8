/// Why a Parse query was refused, in terms the tests and `ParseErrors` act on (102 for the
/// query's shape, 105 for a name). Nothing a client sends is ever silently ignored.
enum ParseQueryError: Error, Sendable, Equatable {
    /// A parameter parse-server does not know either ("Invalid parameter for query: x").
    case invalidParameter(String)
    /// A parameter parse-server knows and this server does not serve (`excludeKeys`, `hint`...).
    case unsupportedParameter(String)
    /// A parameter of the wrong type or out of range; `expected` says what it must be.
    case invalidValue(parameter: String, expected: String)
    /// Not `^[A-Za-z][0-9A-Za-z_]*$` (parse-server's 105 "Invalid key name").
    case invalidKeyName(String)
    /// A well-formed name that is not one of the class's fields.
    case unknownField(className: String, field: String)
    /// An operator outside this server's set (`$regex`, `$or`, `$inQuery`...).
    case unsupportedOperator(field: String, op: String)
    /// A constraint's value of the wrong type for its field.
    case badConstraint(field: String, expected: String)
    /// The constraints and order match no index; `supported` lists the queries that do.
    case unindexed(className: String, supported: String)
    /// `include` of something that is not a pointer of the class.
    case cannotInclude(String)
}
