import JSON
import Storage
import Testing
import TestSupport
import VideoRegistry
@testable import ParseREST

/// The original app's query shapes, as the facade runs them, planned by each database: each
/// is served by the index its `QueryPlan` names, in the index's order (no sort step), so a
/// page costs what the same `/v1` list costs.
struct QueryPlanTests {
    static let day: [String: JSONValue] = [
        "rallyId": .object(["__type": .string("Pointer"), "className": .string("Rallye"), "objectId": .string("r1")]), "nDay": .int(1)]
    static let owner: [String: JSONValue] = [
        "owner": .object(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string("u1")])]

    /// (class, parameters, the index that must serve it)
    static let shapes: [(ParseSchema, [String: JSONValue], String)] = [
        (.video, ["where": .object(day), "order": .string("-nLikes")], "videos_day_top"),
        (.video, ["where": .object(day), "order": .string("nLikes")], "videos_day_top"),
        (.video, ["where": .object(day), "order": .string("-createdAt")], "videos_day_recent"),
        (.video, ["where": .object(owner), "order": .string("-createdAt")], "videos_owner_recent"),
        (.rallye, ["order": .string("iniDate")], "rallies_start_date"),
        (.rallye, ["order": .string("-iniDate")], "rallies_start_date"),
        // The original app's Activity queries: a video's likes and comments, my likes, the
        // people I follow, activities to me.
        (.activity, ["where": .object(["video": pointer("Video", "v1"), "type": .int(1)]), "order": .string("-createdAt")], "activities_video"),
        (.activity, ["where": .object(["video": pointer("Video", "v1"), "type": .int(2)]), "order": .string("createdAt")], "activities_video"),
        (.activity, ["where": .object(["fromUser": pointer("_User", "u1"), "type": .int(1)]), "order": .string("-createdAt")], "activities_from"),
        (.activity, ["where": .object(["fromUser": pointer("_User", "u1"), "type": .int(4)])], "activities_from"),
        (.activity, ["where": .object(["toUser": pointer("_User", "u1")]), "order": .string("-createdAt")], "activities_to_recent"),
        (.activity, ["where": .object(["toUser": pointer("_User", "u1"), "type": .int(2)]), "order": .string("-createdAt")], "activities_to"),
    ]

    static func pointer(_ className: String, _ id: String) -> JSONValue {
        .object(["__type": .string("Pointer"), "className": .string(className), "objectId": .string(id)])
    }

    /// Whom the statements are planned for: the visibility differs (an anonymous reader sees
    /// no flag, a user their own, a moderator all), and none of it may change the index.
    static let viewers: [Viewer] = [.anonymous, Viewer(userID: "u9", canModerate: false), Viewer(userID: "m1", canModerate: true)]

    @Test(arguments: DialectDatabase.dialects)
    func everySupportedShapeIsServedByItsIndex(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        let reads = ClassReads(database: db.database)
        for (schema, parameters, index) in Self.shapes {
            for viewer in Self.viewers {
                let query = try QueryTranslator.translate(try ParseQuery.parse(parameters, for: .find), in: schema, viewer: viewer)
                let statement = reads.statement(schema, query, viewer: viewer)
                let plan = try Self.plan(statement, on: db.database)
                #expect(plan.contains(index), "\(schema.className) \(parameters) for \(viewer): \(plan)")
                switch dialect {
                case .sqlite:
                    #expect(!plan.contains("TEMP B-TREE"), "sorted outside the index: \(plan)")
                case .postgres:
                    #expect(!plan.contains("Sort"), "sorted outside the index: \(plan)")
                }
            }
        }
    }

    /// The check can fail: the day's videos by title, which the translator refuses, sort.
    @Test(arguments: DialectDatabase.dialects)
    func anOrderNoIndexServesShowsItsSort(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        let served = try QueryTranslator.translate(try ParseQuery.parse(["where": .object(Self.day)], for: .find), in: .video)
        let byTitle = TranslatedQuery(filter: served.filter, order: "v.title", limit: 10, skip: 0, count: false, byKey: false, keys: nil, include: [])
        let plan = try Self.plan(ClassReads(database: db.database).statement(.video, byTitle, viewer: .anonymous), on: db.database)
        #expect(plan.contains(dialect == .sqlite ? "TEMP B-TREE" : "Sort"), "\(plan)")
    }

    /// The plan's text (`QueryPlan.text`, sorts priced out).
    static func plan(_ statement: SQL, on database: any Database, bitmaps: Bool = false) throws -> String {
        try QueryPlan.text(of: statement, on: database, bitmaps: bitmaps)
    }
}
