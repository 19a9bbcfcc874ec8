import Auth
import JSON
import Testing
@testable import ParseImport

/// The mapping rules, one table per Parse class.
@Suite struct MapperTests {
    static let now: Int64 = 1_700_000_000_000

    static func fields(_ json: String) -> ParseFields {
        guard case .object(let members)? = try? JSONValue.parse(Array(json.utf8)) else { fatalError("bad test JSON: \(json)") }
        return ParseFields(members)
    }

    static func skipReason<Row>(_ mapped: Mapped<Row>) -> String? {
        if case .skip(let reason) = mapped { return reason }
        return nil
    }

    static func row<Row>(_ mapped: Mapped<Row>) -> (Row, [String])? {
        if case .row(let row, let notes) = mapped { return (row, notes) }
        return nil
    }

    static let hash = "$2b$10$GEJQL85jLoFTvKgaCbdkRexqpdEz7F/BaKg9VQuJ1LE27ONXJJV4."
    static let hash2a = "$2a$" + hash.dropFirst(4)
    static let hash2y = "$2y$" + hash.dropFirst(4)

    // MARK: _User

    @Test(arguments: [
        (#"{"username":"ok_name","email":"a@b.co"}"#, "missing objectId"),
        (#"{"objectId":"bad-id","username":"ok_name","email":"a@b.co"}"#, "invalid objectId (Parse ids are 1 to 32 letters and digits)"),
        (#"{"objectId":"\#(String(repeating: "a", count: 33))","username":"ok_name","email":"a@b.co"}"#, "invalid objectId (Parse ids are 1 to 32 letters and digits)"),
        (#"{"objectId":"u1","email":"a@b.co"}"#, "missing username"),
        (#"{"objectId":"u1","username":"ab","email":"a@b.co"}"#, "invalid username"),
        (#"{"objectId":"u1","username":"has space","email":"a@b.co"}"#, "invalid username"),
        (#"{"objectId":"u1","username":"ünïcode","email":"a@b.co"}"#, "invalid username"),
        (#"{"objectId":"u1","username":"abcdefghijabcdefghijabcdefghij1","email":"a@b.co"}"#, "invalid username"),
    ])
    func usersThatAreSkipped(json: String, reason: String) {
        #expect(Self.skipReason(UserMapper.map(Self.fields(json), now: Self.now)) == reason)
    }

    /// (json, email stored, hash stored, display name, number of notes)
    @Test(arguments: [
        (#"{"objectId":"u1","username":"Seb.Loeb_9","email":"Seb@Example.com","bcryptPassword":"\#(hash)","displayName":"  Sébastien  ","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "Seb@Example.com", hash, "Sébastien", 0),
        (#"{"objectId":"u2","username":"nomail","bcryptPassword":"\#(hash2a)","createdAt":{"__type":"Date","iso":"2013-07-03T08:35:42.288Z"}}"#,
         "u2@users.invalid", hash2a, "nomail", 1),
        (#"{"objectId":"u3","username":"badmail","email":"not an email","bcryptPassword":"\#(hash2y)","displayName":"","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "u3@users.invalid", hash2y, "badmail", 1),
        // A bcrypt prefix on something that is not a whole hash can never verify: not kept.
        (#"{"objectId":"u7","username":"cuthash","email":"c@h.io","bcryptPassword":"$2a$10$abc","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "c@h.io", "!", "cuthash", 1),
        // Cost 12 is the ceiling at the default --bcrypt-cost of 10; 13 is above it.
        (#"{"objectId":"u8","username":"cost12","email":"c12@h.io","bcryptPassword":"$2b$12$\#(hash.dropFirst(7))","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "c12@h.io", "$2b$12$" + hash.dropFirst(7), "cost12", 0),
        (#"{"objectId":"u9","username":"cost13","email":"c13@h.io","bcryptPassword":"$2b$13$\#(hash.dropFirst(7))","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "c13@h.io", "!", "cost13", 1),
        (#"{"objectId":"u4","username":"md5user","email":"m@d.io","bcryptPassword":"md5$abc","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "m@d.io", "!", "md5user", 1),
        (#"{"objectId":"u5","username":"nohash","email":"n@h.io","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "n@h.io", "!", "nohash", 1),
        (#"{"objectId":"u6","username":"longname","email":"l@n.io","bcryptPassword":"\#(hash)","displayName":"\#(String(repeating: "é", count: 150))","createdAt":"2013-07-03T08:35:42.288Z"}"#,
         "l@n.io", hash, String(repeating: "é", count: 100), 0),
    ])
    func usersThatAreImported(json: String, email: String, passwordHash: String, displayName: String, notes: Int) throws {
        let (user, userNotes) = try #require(Self.row(UserMapper.map(Self.fields(json), now: Self.now)))
        #expect(user.email == email)
        #expect(user.passwordHash == passwordHash)
        #expect(user.displayName == displayName)
        #expect(userNotes.count == notes, "\(userNotes)")
        #expect(user.createdAt == 1_372_840_542_288)
    }

    @Test func userTimesFallBack() throws {
        let (noDates, notes) = try #require(Self.row(UserMapper.map(Self.fields(#"{"objectId":"u","username":"abc","email":"a@b.co","bcryptPassword":"\#(Self.hash)"}"#), now: Self.now)))
        #expect(noDates.createdAt == Self.now && noDates.updatedAt == Self.now)
        #expect(notes.count == 1)
        let (updatedOnly, _) = try #require(Self.row(UserMapper.map(Self.fields(#"{"objectId":"u","username":"abc","email":"a@b.co","bcryptPassword":"\#(Self.hash)","updatedAt":"2014-01-01T00:00:00Z"}"#), now: Self.now)))
        #expect(updatedOnly.createdAt == 1_388_534_400_000)
        let (verified, _) = try #require(Self.row(UserMapper.map(Self.fields(#"{"objectId":"u","username":"abc","email":"a@b.co","emailVerified":true}"#), now: Self.now)))
        #expect(verified.emailVerified)
    }

    // MARK: _User.authData

    static let fbToken = "CAAFakeFacebookAccessToken1x2c3v4b5n6m7"
    static let twToken = "2244668800-FakeTwitterAuthToken9q8w7e"
    static let twSecret = "FakeTwitterAuthTokenSecretp0o9i8u7"
    static let consumerSecret = "FakeTwitterConsumerSecret7Qm2vB8nL4"

    static func socialUser(_ authData: String, email: String? = nil) -> String {
        let emailField = email.map { #""email":"\#($0)","# } ?? ""
        return #"{"objectId":"s1","username":"social_one",\#(emailField)"authData":\#(authData),"createdAt":"2014-03-14T18:22:31.512Z"}"#
    }

    static func facebook(_ id: String) -> String {
        #""facebook":{"id":\#(id),"access_token":"\#(fbToken)","expiration_date":"2014-06-20T11:42:07.000Z"}"#
    }

    static func twitter(_ id: String) -> String {
        #""twitter":{"id":\#(id),"screen_name":"someone","auth_token":"\#(twToken)","auth_token_secret":"\#(twSecret)","consumer_key":"FakeKey","consumer_secret":"\#(consumerSecret)"}"#
    }

    /// (authData JSON, identities kept as "provider subject", a text each note about authData must contain)
    @Test(arguments: [
        ("{\(facebook(#""10152384756102938""#))}", ["facebook 10152384756102938"], []),
        ("{\(twitter(#""2244668800""#))}", ["twitter 2244668800"], []),
        ("{\(facebook(#""10153000111222333""#)),\(twitter(#""987654321""#))}", ["facebook 10153000111222333", "twitter 987654321"], []),
        // A JSON integer id is its decimal digits; a string id is trimmed.
        ("{\(facebook("10204455667788990"))}", ["facebook 10204455667788990"], []),
        ("{\(twitter(#"" \t1234567890 ""#))}", ["twitter 1234567890"], []),
        ("{\(facebook(#""\#(String(repeating: "7", count: 255))""#))}", ["facebook " + String(repeating: "7", count: 255)], []),
        // Ids that are not 1 to 255 digits are refused, the value never quoted.
        ("{\(facebook(#""fb-10152-x""#))}", [], ["authData.facebook.id is not a Facebook user id"]),
        ("{\(facebook(#""\#(fbToken)""#))}", [], ["authData.facebook.id is not a Facebook user id"]),
        ("{\(twitter(#""   ""#))}", [], ["authData.twitter.id is not a Twitter user id"]),
        ("{\(twitter("-42"))}", [], ["authData.twitter.id is not a Twitter user id"]),
        ("{\(facebook(#""\#(String(repeating: "7", count: 256))""#))}", [], ["authData.facebook.id is not a Facebook user id"]),
        ("{\(facebook(#""١٢٣""#))}", [], ["authData.facebook.id is not a Facebook user id"]),
        ("{\(facebook("1.0152e16"))}", [], ["authData.facebook.id is not a string or an integer"]),
        ("{\(facebook("null"))}", [], ["authData.facebook.id is not a string or an integer"]),
        (#"{"facebook":{"access_token":"\#(fbToken)"}}"#, [], ["authData.facebook has no id"]),
        (#"{"facebook":"\#(fbToken)"}"#, [], ["authData.facebook has no id"]),
        // Malformed authData: the user is imported without it.
        (#""facebook:10152:\#(fbToken)""#, [], ["authData is not an object"]),
        ("[{\(facebook(#""10152""#))}]", [], ["authData is not an object"]),
        // Other providers are ignored with a note; an unlinked one (null) silently.
        (#"{"anonymous":{"id":"5b1c6f0e-anon"}}"#, [], ["authData.anonymous ignored"]),
        (#"{"google":{"id":"1234","access_token":"\#(fbToken)"},\#(twitter(#""55""#))}"#, ["twitter 55"], ["authData.google ignored"]),
        ("{\(facebook(#""10152""#)),\"twitter\":null}", ["facebook 10152"], []),
        ("{}", [], []),
        ("null", [], []),
    ] as [(String, [String], [String])])
    func authDataBecomesIdentities(authData: String, identities: [String], noteTexts: [String]) throws {
        let json = Self.socialUser(authData, email: "social@example.com")
        let (user, notes) = try #require(Self.row(UserMapper.map(Self.fields(json), now: Self.now)), "\(json)")
        #expect(user.identities.map { "\($0.provider.rawValue) \($0.subject)" } == identities)
        #expect(user.identities.allSatisfy { $0.userID == "s1" && $0.createdAt == 1_394_821_351_512 }, "the user's id and createdAt")
        let authNotes = notes.filter { $0.contains("authData") }
        #expect(authNotes.count == noteTexts.count, "\(notes)")
        for text in noteTexts { #expect(authNotes.contains { $0.contains(text) }, "\(notes)") }
        // The user's row is the one imported without authData.
        #expect(user.email == "social@example.com" && user.username == "social_one" && user.passwordHash == PasswordHasher.noPassword)
        for secret in [Self.fbToken, Self.twToken, Self.twSecret, Self.consumerSecret, "FakeKey", "fb-10152-x", "5b1c6f0e", "someone"] {
            #expect(!notes.contains { $0.contains(secret) }, "no note quotes authData's values: \(notes)")
        }
    }

    /// A social user without email or hash is imported as before: `<id>@users.invalid` and
    /// the unusable hash, with its identity.
    @Test func aFacebookUserWithoutEmailOrHashKeepsTheUsualFallbacks() throws {
        let json = Self.socialUser("{\(Self.facebook("10204455667788990"))}")
        let (user, notes) = try #require(Self.row(UserMapper.map(Self.fields(json), now: Self.now)))
        #expect(user.email == "s1@users.invalid")
        #expect(user.passwordHash == PasswordHasher.noPassword)
        #expect(user.identities == [ImportedIdentity(provider: .facebook, subject: "10204455667788990", userID: "s1", createdAt: 1_394_821_351_512)])
        #expect(notes.count == 2, "no email, no hash: \(notes)")
    }

    @Test func hostileProviderNamesAreEscapedInNotes() throws {
        let json = Self.socialUser(#"{"x\nnote _User other: forged":{"id":"1"}}"#)
        let (user, notes) = try #require(Self.row(UserMapper.map(Self.fields(json), now: Self.now)))
        #expect(user.identities.isEmpty)
        #expect(notes.contains { $0.hasPrefix(#"authData."x\nnote"#) }, "\(notes)")
        #expect(!notes.contains { $0.contains("\n") }, "no note spans two lines: \(notes)")
    }

    // MARK: Rallye

    static func rally(_ ini: String, _ end: String) -> String {
        #"{"objectId":"r1","name":" Rally Sweden ","country":"Sweden","iniDate":\#(ini),"endDate":\#(end),"createdAt":"2013-12-08T00:00:00.000Z"}"#
    }

    /// (iniDate JSON, endDate JSON, expected start day or skip reason)
    @Test(arguments: [
        (#"{"__type":"Date","iso":"2014-02-06T00:00:00.000Z"}"#, #"{"__type":"Date","iso":"2014-02-09T00:00:00.000Z"}"#, "16107-16110"),
        (#""2014-02-06T00:00:00.000Z""#, #""2014-02-09T23:59:59.999Z""#, "16107-16110"),
        (#""2014-02-06""#, #""2014-02-06""#, "16107-16107"),
        (#""2014-02-06T00:00:00.000Z""#, #""2014-03-08T00:00:00.000Z""#, "16107-16137"),
        (#""2014-02-06T00:00:00.000Z""#, #""2014-03-09T00:00:00.000Z""#, "spans 32 days, more than 31"),
        (#""2014-02-09T00:00:00.000Z""#, #""2014-02-06T00:00:00.000Z""#, "endDate before iniDate"),
        (#""yesterday""#, #""2014-02-06T00:00:00.000Z""#, "missing or invalid iniDate"),
        (#""2014-02-06T00:00:00.000Z""#, #"{"__type":"Date"}"#, "missing or invalid endDate"),
    ])
    func rallyDates(ini: String, end: String, expected: String) {
        let mapped = RallyMapper.map(Self.fields(Self.rally(ini, end)), now: Self.now)
        if let (rally, _) = Self.row(mapped) {
            #expect("\(rally.startDate)-\(rally.endDate)" == expected)
            #expect(rally.name == "Rally Sweden")
        } else {
            #expect(Self.skipReason(mapped) == expected)
        }
    }

    // MARK: Video

    static func video(_ members: String) -> String {
        #"{"objectId":"v1","rallyId":{"__type":"Pointer","className":"Rallye","objectId":"r1"},"owner":{"__type":"Pointer","className":"_User","objectId":"u1"},"createdAt":"2014-01-17T21:09:55.254Z",\#(members)}"#
    }

    @Test(arguments: [
        (#""youtubeID":"not-a-yt-id!","title":"t","nDay":1"#, "invalid YouTube id"),
        (#""youtubeID":"","title":"t","nDay":1"#, "invalid YouTube id"),
        (#""title":"t","nDay":1"#, "invalid YouTube id"),
        (#""youtubeID":"TCqlpJOr-pu","title":"t","nDay":0"#, "missing or invalid nDay"),
        (#""youtubeID":"TCqlpJOr-pu","title":"t""#, "missing or invalid nDay"),
    ])
    func videosThatAreSkipped(members: String, reason: String) {
        #expect(Self.skipReason(VideoMapper.map(Self.fields(Self.video(members)), now: Self.now)) == reason)
    }

    @Test func videoPointersAreRequired() {
        #expect(Self.skipReason(VideoMapper.map(Self.fields(#"{"objectId":"v","youtubeID":"TCqlpJOr-pu","nDay":1,"rallyId":"r1"}"#), now: Self.now)) == "missing owner")
        #expect(Self.skipReason(VideoMapper.map(Self.fields(#"{"objectId":"v","youtubeID":"TCqlpJOr-pu","nDay":1,"owner":{"__type":"Pointer","objectId":"u"}}"#), now: Self.now)) == "missing rally")
    }

    /// (members, youtube id, title, description length)
    @Test(arguments: [
        (#""youtubeID":"TCqlpJOr-pu","title":"  Ogier hairpin  ","nDay":2"#, "TCqlpJOr-pu", "Ogier hairpin", 0),
        (#""youtubeID":"https://youtu.be/TCqlpJOr-pu","title":"   ","nDay":2"#, "TCqlpJOr-pu", "Untitled", 0),
        (#""youtubeID":"TCqlpJOr-pu","nDay":2,"description":"\#(String(repeating: "d", count: 2_500))""#, "TCqlpJOr-pu", "Untitled", 2_000),
        (#""youtubeID":"TCqlpJOr-pu","nDay":2,"title":"\#(String(repeating: "t", count: 120))""#, "TCqlpJOr-pu", String(repeating: "t", count: 100), 0),
    ])
    func videosThatAreImported(members: String, youtubeID: String, title: String, descriptionLength: Int) throws {
        let (video, _) = try #require(Self.row(VideoMapper.map(Self.fields(Self.video(members)), now: Self.now)))
        #expect(video.youtubeID == youtubeID)
        #expect(video.title == title)
        #expect(video.description.count == descriptionLength)
        #expect(video.ownerID == "u1" && video.rallyID == "r1" && video.day == 2)
    }

    // MARK: Activity

    static func activity(_ members: String) -> String {
        #"{"objectId":"a1","fromUser":{"__type":"Pointer","className":"_User","objectId":"u1"},"createdAt":"2014-05-01T10:00:00.000Z",\#(members)}"#
    }

    static let toU2 = #""toUser":{"__type":"Pointer","className":"_User","objectId":"u2"}"#
    static let toU1 = #""toUser":{"__type":"Pointer","className":"_User","objectId":"u1"}"#
    static let onV1 = #""video":{"__type":"Pointer","className":"Video","objectId":"v1"}"#

    /// (members, expected "type video content" or skip reason)
    @Test(arguments: [
        (#""type":1,\#(toU2),\#(onV1)"#, "1 v1 nil"),
        (#""type":1,\#(toU2),\#(onV1),"content":"ignored""#, "1 v1 nil"),
        (#""type":2,\#(toU2),\#(onV1),"content":"  Città bellissima  ""#, "2 v1 Città bellissima"),
        (#""type":2,\#(toU2),\#(onV1),"content":"   ""#, "empty comment"),
        (#""type":2,\#(toU2),\#(onV1)"#, "empty comment"),
        (#""type":3,\#(toU2),\#(onV1),"content":"""#, "3 v1 nil"),
        (#""type":3,\#(toU2),\#(onV1),"content":"spam""#, "3 v1 spam"),
        (#""type":4,\#(toU2),\#(onV1)"#, "4 nil nil"),
        (#""type":4,\#(toU1)"#, "follow of oneself"),
        (#""type":9,\#(toU2)"#, "unknown type 9"),
        (#""type":0,\#(toU2)"#, "unknown type 0"),
        (#""type":"like",\#(toU2)"#, "missing type"),
        (#""type":1,\#(toU2)"#, "missing video"),
        (#""type":1,\#(onV1)"#, "missing toUser"),
    ])
    func activities(members: String, expected: String) {
        let mapped = ActivityMapper.map(Self.fields(Self.activity(members)), now: Self.now)
        if let (activity, _) = Self.row(mapped) {
            #expect("\(activity.type) \(activity.videoID ?? "nil") \(activity.content ?? "nil")" == expected)
            #expect(activity.createdAt == 1_398_938_400_000)
        } else {
            #expect(Self.skipReason(mapped) == expected)
        }
    }

    @Test func commentsAreCutTo500Characters() throws {
        let json = Self.activity(#""type":2,\#(Self.toU2),\#(Self.onV1),"content":"\#(String(repeating: "c", count: 600))""#)
        let (activity, _) = try #require(Self.row(ActivityMapper.map(Self.fields(json), now: Self.now)))
        #expect(activity.content?.count == 500)
    }

    // MARK: _Installation

    @Test(arguments: [
        (#"{"objectId":"i1","deviceToken":"tok","deviceType":"ios","localeIdentifier":"fi-FI","user":{"__type":"Pointer","objectId":"u1"}}"#, "ios u1 fi-FI"),
        (#"{"objectId":"i1","deviceToken":"tok","deviceType":"Android","user":{"__type":"Pointer","objectId":"u1"}}"#, "android u1 nil"),
        (#"{"objectId":"i1","deviceToken":"tok","deviceType":"winphone","user":{"__type":"Pointer","objectId":"u1"}}"#, "unsupported deviceType winphone"),
        (#"{"objectId":"i1","deviceType":"ios","user":{"__type":"Pointer","objectId":"u1"}}"#, "missing deviceToken"),
        (#"{"objectId":"i1","deviceToken":"tok","deviceType":"ios"}"#, "no user"),
    ])
    func installations(json: String, expected: String) {
        let mapped = InstallationMapper.map(Self.fields(json), now: Self.now)
        if let (installation, _) = Self.row(mapped) {
            #expect("\(installation.platform) \(installation.userID) \(installation.locale ?? "nil")" == expected)
        } else {
            #expect(Self.skipReason(mapped) == expected)
        }
    }

    // MARK: objectIds and hash costs

    /// Every class refuses an objectId outside Parse's shape, with the same reason.
    @Test(arguments: ["a-b", "x y", "../etc", String(repeating: "7", count: 33), "id\\u0000"])
    func objectIdsOutsideParsesShapeAreSkippedInEveryClass(id: String) {
        let reason = "invalid objectId (Parse ids are 1 to 32 letters and digits)"
        let quoted = #""objectId":"\#(id)""#
        #expect(Self.skipReason(RallyMapper.map(Self.fields(#"{\#(quoted),"name":"R","iniDate":"2014-01-16","endDate":"2014-01-19"}"#), now: Self.now)) == reason)
        #expect(Self.skipReason(VideoMapper.map(Self.fields(#"{\#(quoted),"youtubeID":"dQw4w9WgXcQ","owner":"u1","rallyId":"r1","nDay":1}"#), now: Self.now)) == reason)
        #expect(Self.skipReason(ActivityMapper.map(Self.fields(#"{\#(quoted),"type":4,"fromUser":"u1","toUser":"u2"}"#), now: Self.now)) == reason)
        #expect(Self.skipReason(InstallationMapper.map(Self.fields(#"{\#(quoted),"deviceType":"ios","deviceToken":"t","user":"u1"}"#), now: Self.now)) == reason)
        #expect(Self.skipReason(UserMapper.map(Self.fields(#"{\#(quoted),"username":"someone"}"#), now: Self.now)) == reason)
    }

    @Test func theHashCeilingFollowsTheServersCost() throws {
        let cost14 = "$2b$14$" + Self.hash.dropFirst(7)
        let json = #"{"objectId":"u1","username":"costly","email":"c@h.io","bcryptPassword":"\#(cost14)"}"#
        let (refused, notes) = try #require(Self.row(UserMapper.map(Self.fields(json), now: Self.now, maximumCost: 12)))
        #expect(refused.passwordHash == "!")
        #expect(notes.contains { $0.contains("bcrypt cost 14") })
        let (kept, _) = try #require(Self.row(UserMapper.map(Self.fields(json), now: Self.now, maximumCost: 14)))
        #expect(kept.passwordHash == cost14)
    }

    @Test func reportsPrintHostileIdsEscapedAndCut() {
        #expect(ParseFields.reportable("AbC123") == "AbC123")
        #expect(ParseFields.reportable("a\nskip _User x: forged") == #""a\nskip _User x: forged""#)
        let long = ParseFields.reportable(String(repeating: "a", count: 1_100))
        #expect(long.count < 50 && long.hasSuffix("…"))
    }
}
