/// A value as it crosses the database boundary, in either direction.
///
/// The cases are the storage classes both SQLite and PostgreSQL can carry without loss
/// for our schema: booleans travel as `integer` 0/1, times as `integer` milliseconds.
public enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type that converts to and from a `DatabaseValue`.
///
/// The conversions are @inlinable so that decoders in other modules get them specialised:
/// `Optional`'s, called generically, looked its type metadata up at run time on every column.
public protocol DatabaseValueConvertible: Sendable {
    var databaseValue: DatabaseValue { get }
    /// Returns nil when the stored value is not of this type (a schema or decoding bug).
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension String: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .text(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case .text(let s) = value { return s }
        return nil
    }
}

extension Int64: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let i): return i
        case .real(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(value).map { Int($0) }
    }
}

extension Double: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .real(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }
}

extension Bool: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        if case .integer(let i) = value { return i != 0 }
        return nil
    }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    @inlinable public var databaseValue: DatabaseValue { .blob(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        if case .blob(let b) = value { return b }
        return nil
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { self }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}
