import JSON
import Storage
import Testing
import TestSupport
import VideoRegistry
@testable import ParseREST

/// `$inQuery`, `$notInQuery`, `$select`, `$dontSelect` and `$regex` as the translator serves
/// them: the original app's shapes become one bound statement whose subquery takes an index
/// too (the EXPLAIN plans below), and every other shape is refused.
struct QuerySubqueryTests {
    static func pointer(_ className: String, _ id: String) -> JSONValue {
        .object(["__type": .string("Pointer"), "className": .string(className), "objectId": .string(id)])
    }

    /// The iOS SDK's `whereKey:matchesKey:@"toUser" inQuery:` on my follows.
    static func followed(by id: String, key: String = "toUser") -> JSONValue {
        .object(["$select": .object([
            "query": .object(["className": .string("Activity"), "where": .object(["fromUser": pointer("_User", id), "type": .int(4)])]),
            "key": .string(key),
        ])])
    }

    /// The videos of the people I follow, newest first.
    static let followedVideos: [String: JSONValue] = ["where": .object(["owner": followed(by: "u1")]), "order": .string("-createdAt")]
    /// The likes of the people I follow.
    static let followedActivities: [String: JSONValue] = [
        "where": .object(["fromUser": followed(by: "u1"), "type": .int(1)]), "order": .string("-createdAt")]
    /// Activity on my videos (`$inQuery` on Video).
    static let onMyVideos: [String: JSONValue] = [
        "where": .object(["video": .object(["$inQuery": .object(["className": .string("Video"), "where": .object(["owner": pointer("_User", "u1")])])]),
                          "type": .int(2)]),
        "order": .string("-createdAt"),
    ]

    func translate(_ parameters: [String: JSONValue], _ schema: ParseSchema = .video) throws -> TranslatedQuery {
        try QueryTranslator.translate(try ParseQuery.parse(parameters, for: .find), in: schema)
    }

    func refusal(_ parameters: [String: JSONValue], _ schema: ParseSchema = .video) -> ParseQueryError? {
        do {
            _ = try translate(parameters, schema)
            return nil
        } catch let error as ParseQueryError {
            return error
        } catch {
            return nil
        }
    }

    @Test func selectOfMyFollowsIsASubqueryOnTheirIndex() throws {
        let query = try translate(Self.followedVideos)
        let (text, binds) = query.filter.render(for: .sqlite)
        #expect(text.hasPrefix("v.owner_id IN (SELECT a.to_user_id FROM activities a WHERE a.from_user_id = ? AND a.type = ? AND "), "\(text)")
        #expect(text.contains("ORDER BY a.created_at DESC, a.id DESC LIMIT ? OFFSET ?)"), "\(text)")
        #expect(binds.first == .text("u1") && binds.contains(.integer(4)) && binds.contains(.integer(1_000)))
        #expect(query.order == "v.created_at DESC, v.id DESC")
        let activities = try translate(Self.followedActivities, .activity)
        #expect(activities.filter.render(for: .sqlite).text.hasPrefix("a.from_user_id IN (SELECT a.to_user_id FROM activities a"))
    }

    /// The app's home feed exactly, for its own user, is read from the home timeline; any other
    /// shape (another user's follows, a filter more, a count, an order) takes the subquery.
    @Test func theHomeFeedShapeIsRecognisedExactly() throws {
        let parse = { (parameters: [String: JSONValue]) throws -> ParseQuery in try ParseQuery.parse(parameters, for: .find) }
        #expect(HomeFeedShape.matches(try parse(Self.followedVideos), .video, callerID: "u1"))
        #expect(HomeFeedShape.matches(try parse(["where": .object(["owner": Self.followed(by: "u1")])]), .video, callerID: "u1"))
        #expect(!HomeFeedShape.matches(try parse(Self.followedVideos), .video, callerID: "u2"))
        var counted = Self.followedVideos
        counted["count"] = .int(1)
        #expect(!HomeFeedShape.matches(try parse(counted), .video, callerID: "u1"))
        var oldest = Self.followedVideos
        oldest["order"] = .string("createdAt")
        #expect(!HomeFeedShape.matches(try parse(oldest), .video, callerID: "u1"))
        #expect(!HomeFeedShape.matches(try parse(["where": .object(["owner": Self.followed(by: "u1"), "nDay": .int(1)])]), .video, callerID: "u1"))
        var deep = Self.followedVideos
        deep["skip"] = .int(990)
        deep["limit"] = .int(20)
        #expect(!HomeFeedShape.matches(try parse(deep), .video, callerID: "u1"))
    }

    @Test func inQueryTakesTheInnerObjectIdsAndItsLimit() throws {
        let query = try translate(Self.onMyVideos, .activity)
        let text = query.filter.render(for: .postgres).text
        #expect(text.contains("a.video_id IN (SELECT v.id FROM videos v WHERE v.owner_id = $2 AND "), "\(text)")
        var limited = Self.onMyVideos
        limited["where"] = .object(["video": .object(["$inQuery": .object([
            "className": .string("Video"), "where": .object(["owner": Self.pointer("_User", "u1")]), "limit": .string("5"),
        ])]), "type": .int(2)])
        #expect(try translate(limited, .activity).filter.render(for: .sqlite).binds.contains(.integer(5)))
    }

    @Test func theNegatedFormsFilterAndLeaveNullsIn() throws {
        // Activities to me, but not those of the people I follow; a nullable field keeps its nulls.
        let query = try translate(["where": .object(["toUser": Self.pointer("_User", "u1"), "fromUser": .object(["$dontSelect": .object([
            "query": .object(["className": .string("Activity"), "where": .object(["fromUser": Self.pointer("_User", "u1"), "type": .int(4)])]),
            "key": .string("toUser")])])])], .activity)
        #expect(query.filter.render(for: .sqlite).text.contains("a.from_user_id NOT IN (SELECT a.to_user_id"))
        let videos = try translate(["where": .object(["toUser": Self.pointer("_User", "u1"), "video": .object(["$notInQuery": .object([
            "className": .string("Video"), "where": .object(["owner": Self.pointer("_User", "u2")])])])])], .activity)
        #expect(videos.filter.render(for: .sqlite).text.contains("(a.video_id IS NULL OR a.video_id NOT IN (SELECT v.id FROM videos v"))
        // A negated subquery selects nothing: alone it is a query no index serves.
        if case .unindexed? = refusal(["where": .object(["owner": .object(["$notInQuery": .object([
            "className": .string("_User"), "where": .object(["username": .string("x")])])])])]) {} else {
            Issue.record("a $notInQuery alone is not index-served")
        }
    }

    @Test func improperShapesAreRefused() {
        let follows = Self.followed(by: "u1")
        // $select is exactly {query, key}.
        guard case .object(var select) = follows, case .object(var body)? = select["$select"] else { return }
        body["extra"] = .int(1)
        select["$select"] = .object(body)
        if case .badConstraint? = refusal(["where": .object(["owner": .object(select)])]) {} else { Issue.record("an extra key") }
        // A key of another type than the field: `video` is a Pointer to Video, not to _User.
        if case .badConstraint? = refusal(["where": .object(["owner": Self.followed(by: "u1", key: "video")])]) {} else { Issue.record("key type") }
        // $inQuery of a class the field does not point to.
        if case .badConstraint? = refusal(["where": .object(["owner": .object(["$inQuery": .object([
            "className": .string("Video"), "where": .object(["owner": Self.pointer("_User", "u1")])])])])]) {} else { Issue.record("class") }
        // A class this server does not serve.
        if case .badConstraint? = refusal(["where": .object(["owner": .object(["$inQuery": .object([
            "className": .string("_Session"), "where": .object([:])])])])]) {} else { Issue.record("unserved class") }
        // The subquery must be index-served itself: all activities of type 4 are not.
        #expect(refusal(["where": .object(["owner": .object(["$select": .object([
            "query": .object(["className": .string("Activity"), "where": .object(["type": .int(4)])]), "key": .string("toUser")])])])])
            == .unindexed(className: "Activity", supported: ParseSchema.activity.supportedQueries))
        // A subquery's include or count means nothing: refused, not ignored.
        if case .badConstraint? = refusal(["where": .object(["owner": .object(["$select": .object([
            "query": .object(["className": .string("Activity"), "where": .object(["fromUser": Self.pointer("_User", "u1"), "type": .int(4)]),
                              "include": .string("toUser")]), "key": .string("toUser")])])])]) {} else { Issue.record("include") }
    }

    @Test func subqueriesNestTwoDeepAtMost() throws {
        // The videos of those who follow the people I follow: two levels, served.
        let twoDeep: JSONValue = .object(["$select": .object([
            "query": .object(["className": .string("Activity"), "where": .object(["toUser": Self.followed(by: "u1"), "type": .int(4)])]),
            "key": .string("fromUser")])])
        _ = try translate(["where": .object(["owner": twoDeep]), "order": .string("-createdAt")])
        let threeDeep: JSONValue = .object(["$select": .object([
            "query": .object(["className": .string("Activity"), "where": .object(["toUser": twoDeep, "type": .int(4)])]),
            "key": .string("fromUser")])])
        if case .unsupportedOperator? = refusal(["where": .object(["owner": threeDeep])]) {} else { Issue.record("three deep") }
    }

    @Test func regexIsAnAnchoredLiteralPrefixFilter() throws {
        let mine = Self.pointer("_User", "u1")
        for pattern in [#"^\QOgier\E"#, "^Ogier"] {
            let query = try translate(["where": .object(["owner": mine, "title": .object(["$regex": .string(pattern)])])])
            let (text, binds) = query.filter.render(for: .postgres)
            #expect(text.contains("substr(v.title, 1, 5) = $"), "\(text)")
            #expect(binds.contains(.text("Ogier")))
        }
        #expect(QueryTranslator.literalPrefix(#"^a\.b"#) == "a.b")
        #expect(QueryTranslator.literalPrefix(#"^\Qa.*\E"#) == "a.*")
        for pattern in ["Ogier", "^Og.er", "^Og*", "^(a|b)", #"^\d"#, #"^\Qa\Eb\E"#, "^a$"] {
            #expect(QueryTranslator.literalPrefix(pattern) == nil, "\(pattern)")
            if case .unsupportedOperator? = refusal(["where": .object(["owner": mine, "title": .object(["$regex": .string(pattern)])])]) {} else {
                Issue.record("\(pattern) is not a literal prefix")
            }
        }
        // Options are not served; an empty one is no option.
        #expect(refusal(["where": .object(["owner": mine, "title": .object(["$regex": .string("^O"), "$options": .string("i")])])])
            == .unsupportedOperator(field: "title", op: "$options"))
        _ = try translate(["where": .object(["owner": mine, "title": .object(["$regex": .string("^O"), "$options": .string("")])])])
        // A prefix alone selects nothing: the day's videos by title prefix need the day.
        if case .unindexed? = refusal(["where": .object(["title": .object(["$regex": .string("^O")])])]) {} else { Issue.record("alone") }
        // Not on numbers or pointers.
        if case .unsupportedOperator? = refusal(["where": .object(["owner": mine, "nDay": .object(["$regex": .string("^1")])])]) {} else {
            Issue.record("a number")
        }
    }

    /// `$or` whose every branch a plan serves: my likes or the activities to me, newest first.
    static let likesOrToMe: [String: JSONValue] = [
        "where": .object(["$or": .array([
            .object(["fromUser": pointer("_User", "u1"), "type": .int(1)]),
            .object(["toUser": pointer("_User", "u1")]),
        ])]),
        "order": .string("-createdAt"),
    ]

    @Test func orIsServedWhenEveryBranchIs() throws {
        let query = try translate(Self.likesOrToMe, .activity)
        let (text, _) = query.filter.render(for: .sqlite)
        #expect(text == "1 = 1 AND ((a.from_user_id = ? AND a.type = ?) OR (a.to_user_id = ?))", "\(text)")
        #expect(query.order == "a.created_at DESC, a.id DESC" && !query.byKey)
        // Constraints beside the `$or` apply to every branch and may complete its plan.
        let day = try translate(["where": .object(["rallyId": Self.pointer("Rallye", "r1"), "$or": .array([
            .object(["nDay": .int(1)]), .object(["nDay": .int(2)])])]), "order": .string("-nLikes")])
        #expect(day.filter.render(for: .sqlite).text == "v.rally_id = ? AND ((v.day = ?) OR (v.day = ?))")
        // One branch no index serves refuses the whole query.
        #expect(refusal(["where": .object(["$or": .array([
            .object(["fromUser": Self.pointer("_User", "u1"), "type": .int(1)]), .object(["type": .int(2)])])])], .activity)
            == .unindexed(className: "Activity", supported: ParseSchema.activity.supportedQueries))
        // Not nested, at most 10 branches, each an object.
        #expect(refusal(["where": .object(["$or": .array([.object(["$or": .array([])])])])], .activity)
            == .unsupportedOperator(field: "where", op: "$or"))
        if case .badConstraint? = refusal(["where": .object(["$or": .array(Array(repeating: .object(["objectId": .string("x")]), count: 11))])]) {} else {
            Issue.record("11 branches")
        }
        if case .badConstraint? = refusal(["where": .object(["$or": .array([.int(1)])])]) {} else { Issue.record("a branch not an object") }
    }

    /// Each database plans the subquery shapes on the indexes: the outer rows by the index of
    /// the field the subquery constrains, the subquery's by its own; no table is scanned. The
    /// outer rows of many keys are merged by a sort, bounded by the subquery's limit of keys.
    @Test(arguments: DialectDatabase.dialects)
    func subqueriesAreServedByIndexes(dialect: SQLDialect) throws {
        let db = try DialectDatabase(dialect)
        let reads = ClassReads(database: db.database)
        let shapes: [(ParseSchema, [String: JSONValue], [String])] = [
            (.video, Self.followedVideos, ["videos_owner", "activities_from"]),
            (.activity, Self.followedActivities, ["activities_from"]),
            (.activity, Self.onMyVideos, ["activities_video", "videos_owner"]),
            // PostgreSQL may take another index of the likes for the first branch (activities_one_like).
            (.activity, Self.likesOrToMe, dialect == .sqlite ? ["MULTI-INDEX OR", "activities_from", "activities_to"] : ["BitmapOr", "activities_to"]),
        ]
        for (schema, parameters, indexes) in shapes {
            // Each viewer's visibility (flags included) is in the subquery and the outer statement.
            for viewer in QueryPlanTests.viewers {
                let query = try QueryTranslator.translate(try ParseQuery.parse(parameters, for: .find), in: schema, viewer: viewer)
                let plan = try QueryPlanTests.plan(reads.statement(schema, query, viewer: viewer), on: db.database, bitmaps: true)
                for index in indexes { #expect(plan.contains(index), "\(schema.className) \(index) for \(viewer): \(plan)") }
                switch dialect {
                case .sqlite:
                    #expect(!plan.contains("SCAN v") && !plan.contains("SCAN a"), "a scan: \(plan)")
                case .postgres:
                    #expect(!plan.contains("Seq Scan"), "a scan: \(plan)")
                }
            }
        }
    }
}
