import Storage

/// The text of a statement's plan on either database, for tests that hold a statement to its
/// index. PostgreSQL's planner scans an empty table sequentially (and sorts it), whatever the
/// indexes: with those priced out, what remains is what an index can serve, so a shape no
/// index serves still shows its Seq Scan or Sort.
public enum QueryPlan {
    /// - Parameters:
    ///   - sorts: leave PostgreSQL's sorts priced in (a plan that sorts what an index range read).
    ///   - bitmaps: let PostgreSQL combine index ranges (a `$or`'s BitmapOr).
    public static func text(of statement: SQL, on database: any Database, sorts: Bool = false, bitmaps: Bool = false) throws -> String {
        switch database.dialect {
        case .sqlite:
            return try database.read { connection in
                try connection.fetchAll("EXPLAIN QUERY PLAN \(statement)").map { row in (try? row.decode("detail", as: String.self)) ?? "" }
            }.joined(separator: "\n")
        case .postgres:
            return try database.write { connection in
                try connection.execute("SET LOCAL enable_seqscan = off")
                if !bitmaps { try connection.execute("SET LOCAL enable_bitmapscan = off") }
                if !sorts { try connection.execute("SET LOCAL enable_sort = off") }
                return try connection.fetchAll("EXPLAIN \(statement)").map { row in (try? row.decode(at: 0, as: String.self)) ?? "" }
            }.joined(separator: "\n")
        }
    }
}
