/// A Parse class as the facade serves it: its table, each Parse field's column and type, and
/// the query shapes its indexes serve. The field mapping is the import's (Sources/ParseImport,
/// `RallyMapper`, `VideoMapper`, `UserMapper`): a field here reads the column the importer
/// wrote it into.
///
/// Columns are trusted text chosen here, never from input: they are spliced into SQL as is.
struct ParseSchema: Sendable {
    let className: String
    /// The table with its alias, as the FROM clause names it (`videos v`).
    let table: String
    /// The alias the columns are qualified with.
    let alias: String
    let fields: [String: Field]
    /// Fields objects carry that no query constrains (`keys` may name them): derived ones
    /// (`nDays`), files, and the account's own email, which must not be searchable.
    var outputOnly: Set<String> = []
    /// The shapes a query of this class must take, first match wins (`QueryPlan`).
    let plans: [QueryPlan]
    /// Said in the 102 of a query no plan serves.
    let supportedQueries: String

    struct Field: Sendable {
        /// The qualified column (`v.likes_count`).
        let column: String
        let type: FieldType
        /// The column may be NULL (an Activity's video, for a follow): `$exists` and equality to
        /// null test it. Every other served column is NOT NULL.
        var nullable = false
    }

    enum FieldType: Sendable, Equatable {
        /// A text column (objectId is one).
        case string
        case integer
        /// A calendar date stored as days since 1970-01-01, a Parse Date at midnight UTC.
        case calendarDay
        /// Milliseconds since 1970, a Parse Date (`createdAt`, `updatedAt`).
        case timestamp
        /// A Pointer to the class named, stored as its objectId.
        case pointer(String)
    }

    func field(_ name: String) throws(ParseQueryError) -> Field {
        guard let field = fields[name] else { throw .unknownField(className: className, field: name) }
        return field
    }
}

/// One query shape an index serves: the fields that must be constrained by equality (a
/// single value; `objectId` may also be `$in`), and the orders the index returns rows in.
/// Constraints on other fields are filters inside the rows the equality prefix selects,
/// which bounds them (one day's videos, one user's); a plan without an equality prefix is
/// for a table bounded by what it holds (the rally calendar).
struct QueryPlan: Sendable {
    let equalities: Set<String>
    /// The equality is a unique key (objectId, youtubeID, username), which may also be `$in`
    /// a list: the rows are at most the values given, so any order sorts a handful of rows.
    var byKey = false
    /// Each served order as (Parse field, descending) terms, and the SQL that sorts by it
    /// (with the index's own tie-breakers, so pages are stable).
    let orders: [(terms: [OrderTerm], sql: String)]

    struct OrderTerm: Sendable, Equatable {
        let field: String
        let descending: Bool
    }
}

extension ParseSchema {
    static let rallye = ParseSchema(
        className: "Rallye", table: "rallies r", alias: "r",
        fields: [
            "objectId": Field(column: "r.id", type: .string),
            "name": Field(column: "r.name", type: .string),
            "country": Field(column: "r.country", type: .string),
            "iniDate": Field(column: "r.start_date", type: .calendarDay),
            "endDate": Field(column: "r.end_date", type: .calendarDay),
            "createdAt": Field(column: "r.created_at", type: .timestamp),
            "updatedAt": Field(column: "r.updated_at", type: .timestamp),
        ],
        outputOnly: ["nDays"],
        plans: [
            // The calendar: a season is tens of rows, so any filter is bounded; the order is
            // the index rallies_start_date (start_date, id).
            QueryPlan(equalities: [], orders: [
                ([.init(field: "iniDate", descending: false)], "r.start_date, r.id"),
                ([.init(field: "iniDate", descending: true)], "r.start_date DESC, r.id DESC"),
            ]),
        ],
        supportedQueries: "any constraint, ordered by iniDate or -iniDate (or unordered)")

    static let video = ParseSchema(
        className: "Video", table: "videos v", alias: "v",
        fields: [
            "objectId": Field(column: "v.id", type: .string),
            "youtubeID": Field(column: "v.youtube_id", type: .string),
            "title": Field(column: "v.title", type: .string),
            "description": Field(column: "v.description", type: .string),
            "nDay": Field(column: "v.day", type: .integer),
            "rallyId": Field(column: "v.rally_id", type: .pointer("Rallye")),
            "owner": Field(column: "v.owner_id", type: .pointer("_User")),
            "nLikes": Field(column: "v.likes_count", type: .integer),
            "nComments": Field(column: "v.comments_count", type: .integer),
            "createdAt": Field(column: "v.created_at", type: .timestamp),
            "updatedAt": Field(column: "v.updated_at", type: .timestamp),
        ],
        plans: [
            // By id (objectId, or youtubeID: both unique): at most the ids given, any order.
            QueryPlan(equalities: ["objectId"], byKey: true, orders: []),
            QueryPlan(equalities: ["youtubeID"], byKey: true, orders: []),
            // A rally day's videos: videos_day_top and videos_day_recent.
            QueryPlan(equalities: ["rallyId", "nDay"], orders: [
                ([.init(field: "nLikes", descending: true)], "v.likes_count DESC, v.created_at DESC, v.id DESC"),
                ([.init(field: "nLikes", descending: true), .init(field: "createdAt", descending: true)],
                 "v.likes_count DESC, v.created_at DESC, v.id DESC"),
                ([.init(field: "nLikes", descending: false)], "v.likes_count, v.created_at, v.id"),
                ([.init(field: "nLikes", descending: false), .init(field: "createdAt", descending: false)],
                 "v.likes_count, v.created_at, v.id"),
            ] + recent(alias: "v")),
            // A user's videos: videos_owner_recent.
            QueryPlan(equalities: ["owner"], orders: recent(alias: "v")),
        ],
        supportedQueries: "objectId or youtubeID equal to a value or $in a list; rallyId and nDay equal, "
            + "ordered by -nLikes, nLikes, -createdAt or createdAt; owner equal, ordered by -createdAt or createdAt")

    static let user = ParseSchema(
        className: "_User", table: "users", alias: "users",
        fields: [
            "objectId": Field(column: "users.id", type: .string),
            "username": Field(column: "users.username", type: .string),
            "displayName": Field(column: "users.display_name", type: .string),
            "createdAt": Field(column: "users.created_at", type: .timestamp),
            "updatedAt": Field(column: "users.updated_at", type: .timestamp),
        ],
        outputOnly: ["email", "emailVerified", "profilePictureMedium", "profilePictureSmall"],
        plans: [
            QueryPlan(equalities: ["objectId"], byKey: true, orders: []),
            // username_key is the unique lower-cased copy: `QueryTranslator` adds it.
            QueryPlan(equalities: ["username"], byKey: true, orders: []),
        ],
        supportedQueries: "objectId or username equal to a value or $in a list")

    /// Likes (type 1), comments (2), flags (3) and follows (4). Activities are never edited:
    /// updatedAt is createdAt. The orders are the indexes' (created_at, id) after the equalities.
    static let activity = ParseSchema(
        className: "Activity", table: "activities a", alias: "a",
        fields: [
            "objectId": Field(column: "a.id", type: .string),
            "type": Field(column: "a.type", type: .integer),
            "fromUser": Field(column: "a.from_user_id", type: .pointer("_User")),
            "toUser": Field(column: "a.to_user_id", type: .pointer("_User")),
            "video": Field(column: "a.video_id", type: .pointer("Video"), nullable: true),
            "createdAt": Field(column: "a.created_at", type: .timestamp),
            "updatedAt": Field(column: "a.created_at", type: .timestamp),
        ],
        outputOnly: ["content"],
        plans: [
            QueryPlan(equalities: ["objectId"], byKey: true, orders: []),
            // A video's likes or comments: activities_video (video_id, type, created_at, id).
            QueryPlan(equalities: ["video", "type"], orders: recent(alias: "a")),
            // My likes, the people I follow: activities_from (from_user_id, type, created_at, id).
            QueryPlan(equalities: ["fromUser", "type"], orders: recent(alias: "a")),
            // Activities to me of one type: activities_to (to_user_id, type, created_at, id).
            QueryPlan(equalities: ["toUser", "type"], orders: recent(alias: "a")),
            // Activities to me: activities_to_recent (to_user_id, created_at, id).
            QueryPlan(equalities: ["toUser"], orders: recent(alias: "a")),
        ],
        supportedQueries: "objectId equal to a value or $in a list; video and type equal, fromUser and type equal, "
            + "toUser equal (and type), each ordered by -createdAt or createdAt")

    /// The classes a query may name; others are 119 (`ClassRoutes`).
    static let byClassName: [String: ParseSchema] = ["Rallye": rallye, "Video": video, "_User": user, "Activity": activity]

    /// Newest first or oldest first, by created_at then id.
    private static func recent(alias: String) -> [(terms: [QueryPlan.OrderTerm], sql: String)] {
        [([.init(field: "createdAt", descending: true)], "\(alias).created_at DESC, \(alias).id DESC"),
         ([.init(field: "createdAt", descending: false)], "\(alias).created_at, \(alias).id")]
    }
}
