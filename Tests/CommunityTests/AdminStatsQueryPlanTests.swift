import Storage
import Testing
import TestSupport
@testable import Community

/// `GET /v1/admin/stats` reads a range of an index per statement on both databases, never a
/// whole table (issue 34: bounded cost whatever the tables hold). Each statement AdminStats
/// sends is explained as it is sent.
struct AdminStatsQueryPlanTests {
    static let first = 19_700

    /// (statement, the index that must serve it)
    static let statements: [(SQL, String)] = [
        (AdminStats.signups(from: first), "users_created_day"),
        (AdminStats.videos(from: first), "videos_created_day"),
        (AdminStats.activities(from: first), "activities_type_day"),
        (AdminStats.activeUsers(from: first), "active_days"),
        (AdminStats.distinctActive(from: first), "active_days"),
    ]

    @Test(arguments: DialectDatabase.dialects)
    func everyStatementIsARangeOfItsIndex(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        for (statement, index) in Self.statements {
            let plan = try QueryPlan.text(of: statement, on: db.database, sorts: true)
            #expect(plan.contains(index), "\(statement): \(plan)")
            switch dialect {
            case .sqlite:
                // SEARCH is a range of an index; SCAN of a table is the whole of it.
                #expect(plan.contains("SEARCH"), "\(plan)")
                #expect(!plan.contains("SCAN users") && !plan.contains("SCAN videos") && !plan.contains("SCAN activities"), "\(plan)")
            case .postgres:
                #expect(!plan.contains("Seq Scan"), "\(plan)")
                #expect(plan.contains("Index Cond"), "a range, not a walk of the whole index: \(plan)")
            }
        }
    }
}
