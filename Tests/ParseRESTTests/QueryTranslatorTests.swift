import JSON
import Storage
import Testing
@testable import ParseREST

/// The translator as a pure function: Parse parameters in, bound SQL out (or the refusal), for
/// the original app's queries and for what must never be served.
struct QueryTranslatorTests {
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

    static let monteCarlo: JSONValue = .object(["__type": .string("Pointer"), "className": .string("Rallye"), "objectId": .string("tOamv3It6z")])
    static func date(_ iso: String) -> JSONValue { .object(["__type": .string("Date"), "iso": .string(iso)]) }

    @Test func aDaysVideosByLikesUseTheTopIndexOrder() throws {
        let query = try translate(["where": .object(["rallyId": Self.monteCarlo, "nDay": .int(1)]), "order": .string("-nLikes"),
                                   "limit": .string("20"), "skip": .string("40")])
        #expect(query.order == "v.likes_count DESC, v.created_at DESC, v.id DESC")
        #expect(query.limit == 20 && query.skip == 40 && !query.byKey)
        let (text, binds) = query.filter.render(for: .sqlite)
        #expect(text == "v.day = ? AND v.rally_id = ?")
        #expect(binds == [.integer(1), .text("tOamv3It6z")])
        #expect(query.filter.render(for: .postgres).text == "v.day = $1 AND v.rally_id = $2")
    }

    @Test func aDaysVideosByRecencyAndAUsersVideos() throws {
        let day = try translate(["where": .string(#"{"rallyId":{"__type":"Pointer","className":"Rallye","objectId":"tOamv3It6z"},"nDay":2}"#),
                                 "order": .string("-createdAt")])
        #expect(day.order == "v.created_at DESC, v.id DESC")
        let owner: JSONValue = .object(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string("pFqPlpECXV")])
        let mine = try translate(["where": .object(["owner": owner]), "order": .string("createdAt"), "count": .int(1), "limit": .int(0)])
        #expect(mine.order == "v.created_at, v.id")
        #expect(mine.count && mine.limit == 0)
    }

    @Test func defaultsAndCaps() throws {
        let query = try translate([:], .rallye)
        #expect(query.limit == 100 && query.skip == 0 && query.order == "r.start_date, r.id")
        #expect(refusal(["limit": .int(1_001)], .rallye) == .invalidValue(parameter: "limit", expected: "an integer from 0 to 1000"))
        #expect(refusal(["skip": .int(10_001)], .rallye) == .invalidValue(parameter: "skip", expected: "an integer from 0 to 10000"))
        #expect(refusal(["limit": .string("ten")], .rallye) != nil)
    }

    @Test func rallyDatesCompareAsMidnights() throws {
        func filter(_ op: String, _ iso: String) throws -> String {
            let query = try translate(["where": .object(["iniDate": .object([op: Self.date(iso)])])], .rallye)
            let (text, binds) = query.filter.render(for: .sqlite)
            return binds.reduce(text) { text, bind in
                guard case .integer(let value) = bind, let range = text.range(of: "?") else { return text }
                return text.replacingCharacters(in: range, with: String(value))
            }
        }
        // 2014-01-16 is day 16086.
        #expect(try filter("$gt", "2014-01-16T00:00:00.000Z") == "r.start_date > 16086")
        #expect(try filter("$gte", "2014-01-16T00:00:00.000Z") == "r.start_date >= 16086")
        #expect(try filter("$gte", "2014-01-16T12:00:00.000Z") == "r.start_date >= 16087")
        #expect(try filter("$lt", "2014-01-16T12:00:00.000Z") == "r.start_date < 16087")
        #expect(try filter("$lte", "2014-01-16T12:00:00.000Z") == "r.start_date <= 16086")
        #expect(try filter("$eq", "2014-01-16T12:00:00.000Z") == "1 = 0")
        #expect(try filter("$ne", "2014-01-16T00:00:00.000Z") == "r.start_date <> 16086")
    }

    @Test func byKeyQueriesTakeListsAndAnyOrder() throws {
        let query = try translate(["where": .object(["objectId": .object(["$in": .array([.string("a"), .string("b")])])]),
                                   "order": .string("-nComments,title")])
        #expect(query.byKey)
        #expect(query.order == "v.comments_count DESC, v.title, v.id")
        #expect(query.filter.render(for: .sqlite).text == "v.id IN (?, ?)")
        let empty = try translate(["where": .object(["objectId": .object(["$in": .array([])])])])
        #expect(empty.filter.render(for: .sqlite).text == "1 = 0")
    }

    @Test func usernameEqualityAddsTheIndexedKey() throws {
        let query = try translate(["where": .object(["username": .string("Tommi")])], .user)
        let (text, binds) = query.filter.render(for: .sqlite)
        #expect(text == "users.username = ? AND users.username_key = ?")
        #expect(binds == [.text("Tommi"), .text("tommi")])
    }

    @Test func operatorsBeyondTheSliceAre102() {
        #expect(refusal(["where": .object(["title": .object(["$all": .array([.string("a")])])])]) == .unsupportedOperator(field: "title", op: "$all"))
        if case .badConstraint(field: "$or", _)? = refusal(["where": .object(["$or": .array([])])]) {} else { Issue.record("an empty $or") }
        #expect(refusal(["where": .object(["$and": .array([])])]) == .unsupportedOperator(field: "where", op: "$and"))
        #expect(refusal(["where": .object(["$relatedTo": .object([:])])]) == .unsupportedOperator(field: "where", op: "$relatedTo"))
        // An `$inQuery` without its className is parse-server's "improper usage" (102 too).
        if case .badConstraint(field: "owner", _)? = refusal(["where": .object(["owner": .object(["$inQuery": .object([:])])])]) {} else {
            Issue.record("an empty $inQuery is improper")
        }
        #expect(refusal(["where": .object(["nDay": .object(["$gt": .string("1")])]), "order": .string("-nLikes")]) != nil)
        #expect(refusal(["excludeKeys": .string("title")]) == .unsupportedParameter("excludeKeys"))
        #expect(refusal(["trace": .int(1)]) == .invalidParameter("trace"))
    }

    @Test func unknownAndMalformedNamesAre105() {
        #expect(refusal(["where": .object(["password": .string("x")])], .user) == .unknownField(className: "_User", field: "password"))
        #expect(refusal(["where": .object(["email": .string("x@example.com")])], .user) == .unknownField(className: "_User", field: "email"))
        #expect(refusal(["where": .object(["a.b": .int(1)])]) == .invalidKeyName("a.b"))
        #expect(refusal(["order": .string("-secret")], .rallye) == .unknownField(className: "Rallye", field: "secret"))
        #expect(refusal(["keys": .string("title,secret"), "where": .object(["objectId": .string("x")])]) == .unknownField(className: "Video", field: "secret"))
    }

    @Test func queriesNoIndexServesAreRefused() {
        let unindexed = ParseQueryError.unindexed(className: "Video", supported: ParseSchema.video.supportedQueries)
        #expect(refusal(["order": .string("-createdAt")]) == unindexed)
        #expect(refusal(["where": .object(["title": .string("Ogier")])]) == unindexed)
        // A day's videos in an order no index keeps.
        #expect(refusal(["where": .object(["rallyId": Self.monteCarlo, "nDay": .int(1)]), "order": .string("title")]) == unindexed)
        #expect(refusal(["where": .object(["rallyId": Self.monteCarlo, "nDay": .int(1)]), "order": .string("nLikes,-createdAt")]) == unindexed)
        #expect(refusal(["order": .string("name")], .rallye) == .unindexed(className: "Rallye", supported: ParseSchema.rallye.supportedQueries))
    }

    @Test func pointersAndIncludes() {
        let wrongClass: JSONValue = .object(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string("x")])
        #expect(refusal(["where": .object(["rallyId": wrongClass, "nDay": .int(1)])]) == .badConstraint(field: "rallyId", expected: "a Pointer to Rallye"))
        #expect(refusal(["where": .object(["objectId": .string("x")]), "include": .string("comments")]) == .cannotInclude("comments"))
        #expect(refusal(["include": .string("owner")], .rallye) == .cannotInclude("owner"))
    }

    // MARK: Activity

    static func user(_ id: String) -> JSONValue { .object(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string(id)]) }
    static func video(_ id: String) -> JSONValue { .object(["__type": .string("Pointer"), "className": .string("Video"), "objectId": .string(id)]) }

    @Test func activityShapesTakeTheirIndexesOrder() throws {
        let toMe = try translate(["where": .object(["toUser": Self.user("u1")]), "order": .string("-createdAt"), "include": .string("fromUser,video")], .activity)
        #expect(toMe.order == "a.created_at DESC, a.id DESC")
        #expect(toMe.filter.render(for: .sqlite).text == "a.to_user_id = ?")
        #expect(toMe.include == ["fromUser", "video"])
        let comments = try translate(["where": .object(["video": Self.video("v1"), "type": .int(2)]), "order": .string("createdAt")], .activity)
        #expect(comments.order == "a.created_at, a.id")
        #expect(comments.filter.render(for: .sqlite).text == "a.type = ? AND a.video_id = ?")
        let myLikes = try translate(["where": .object(["fromUser": Self.user("u1"), "type": .int(1)])], .activity)
        #expect(myLikes.order == "a.created_at DESC, a.id DESC")
        #expect(myLikes.filter.render(for: .sqlite).binds == [.text("u1"), .integer(1)])
    }

    @Test func activityVideoIsNullableAndUnservedShapesAreRefused() throws {
        let follows = try translate(["where": .object(["fromUser": Self.user("u1"), "type": .int(4), "video": .object(["$exists": .bool(false)])])], .activity)
        #expect(follows.filter.render(for: .sqlite).text == "a.from_user_id = ? AND a.type = ? AND a.video_id IS NULL")
        let unindexed = ParseQueryError.unindexed(className: "Activity", supported: ParseSchema.activity.supportedQueries)
        #expect(refusal(["where": .object(["type": .int(1)])], .activity) == unindexed)
        #expect(refusal(["where": .object(["video": Self.video("v1")]), "order": .string("-createdAt")], .activity) == unindexed)
        #expect(refusal(["where": .object(["toUser": Self.user("u1")]), "order": .string("type")], .activity) == unindexed)
        #expect(refusal(["where": .object(["toUser": Self.user("u1")]), "include": .string("owner")], .activity) == .cannotInclude("owner"))
        #expect(refusal(["where": .object(["content": .string("x"), "toUser": Self.user("u1")])], .activity)
            == .unknownField(className: "Activity", field: "content"))
    }
}
