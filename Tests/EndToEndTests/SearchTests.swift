import XCTest

/// Search: case- and accent-insensitive, prefix on the last word, every word required, best match
/// first, and whatever a user types never a 5xx.
final class SearchTests: ServerTestCase {
    private func search(_ kind: String, _ q: String, _ token: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try firstPage("/v1/search/\(kind)?q=\(queryValue(q))", token, file: file, line: line)
    }

    private func titles(_ items: [[String: Any]]) -> [String] { items.compactMap { $0["title"] as? String } }

    func testCaseAccentsPrefixesAndEveryWord() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let tag = Fake.word()  // keeps this test's videos apart from the others'
        let vence = try postVideo(owner, rallyId: rallyId, title: "Montée de Vence \(tag)")
        let monte = try postVideo(owner, rallyId: rallyId, title: "Rallye Monte-Carlo \(tag)")
        let portugal = try postVideo(owner, rallyId: rallyId, title: "Portugal \(tag) Fafe jump")
        let both = try postVideo(owner, rallyId: rallyId, title: "Rallye \(tag) de Portugal")
        let expectations: [(String, [[String: Any]], [[String: Any]])] = [
            ("montee \(tag)", [vence], [monte, portugal, both]),
            ("MONTÉE \(tag)", [vence], [monte]),
            ("RALLYE \(tag)", [monte, both], [vence, portugal]),
            ("portugal \(tag)", [portugal, both], [vence, monte]),
            ("\(tag) rall", [monte, both], [vence, portugal]),
            ("\(tag) ral", [monte, both], [vence]),
            ("rallye portugal \(tag)", [both], [monte, portugal, vence]),
            ("\(tag) monte", [vence, monte], [portugal, both]),
            ("\(tag) monte carlo", [monte], [vence]),
            ("\(tag.uppercased())", [vence, monte, portugal, both], []),
            (String(tag.prefix(6)), [vence, monte, portugal, both], []),
        ]
        for (q, wanted, unwanted) in expectations {
            let found = try search("videos", q, owner.token)
            let foundIds = Set(ids(found))
            for video in wanted {
                XCTAssertTrue(foundIds.contains(video["id"] as? String ?? ""), "q=\(q) finds \(video["title"] ?? ""); got \(titles(found))")
            }
            for video in unwanted {
                XCTAssertFalse(foundIds.contains(video["id"] as? String ?? ""), "q=\(q) does not find \(video["title"] ?? ""); got \(titles(found))")
            }
            for item in found { assertVideo(item) }
        }
    }

    func testExactUsernameRanksAbovePrefixMatches() throws {
        let viewer = try client.signup()
        // Made first, so a newest-first tie-break would put it ahead: only ranking puts "rally" first.
        let fan = try client.signup(username: "rallyfan", displayName: "Rally Fan")
        let exact = try client.signup(username: "rally", displayName: "Someone")
        let found = try search("users", "rally", viewer.token)
        XCTAssertEqual(found.first?["id"] as? String, exact.id, "the exact username first: \(found.map { $0["username"] ?? "" })")
        XCTAssertTrue(ids(found).contains(fan.id), "the prefix match is listed too")
        for user in found {
            assertPublicUser(user)
            XCTAssertNil(user["email"], "search answers public users")
            XCTAssertTrue(isJSONBool(user["isFollowing"]))
        }
        XCTAssertEqual(try search("users", "RALLYF", viewer.token).first?["id"] as? String, fan.id, "case-insensitive prefix")
        XCTAssertTrue(ids(try search("users", "rally fan", viewer.token)).contains(fan.id), "display name words")
        XCTAssertFalse(ids(try search("users", "rally fan", viewer.token)).contains(exact.id), "every word must match")
    }

    func testWholeWordTitleRanksAbovePrefixOnly() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let tag = Fake.word()
        let whole = try postVideo(owner, rallyId: rallyId, title: "\(tag) Rally")
        let prefixOnly = try postVideo(owner, rallyId: rallyId, title: "\(tag) Rallycross")
        let found = ids(try search("videos", "\(tag) rally", owner.token))
        XCTAssertEqual(found.filter { [whole["id"] as? String, prefixOnly["id"] as? String].contains($0) },
                       [whole["id"] as? String ?? "", prefixOnly["id"] as? String ?? ""], "the whole-word match first, then the prefix-only one")
    }

    func testEmptyOrPunctuationQueryIsInvalid() throws {
        let viewer = try client.signup()
        for kind in ["users", "videos"] {
            for q in ["", "   ", "!!!", "-", "\"\"", "*", "..."] {
                assertError(try client.request("GET", "/v1/search/\(kind)?q=\(queryValue(q))", token: viewer.token),
                            400, "validation_failed", field: "q", "\(kind) q=\(q.debugDescription)")
            }
            assertError(try client.request("GET", "/v1/search/\(kind)", token: viewer.token), 400, "validation_failed", field: "q", "\(kind) without q")
            assertError(try client.request("GET", "/v1/search/\(kind)?q=rally"), 401, "unauthorized")
        }
    }

    /// Search syntax of other engines is plain text here: a query with a word in it is a page,
    /// one without (punctuation, symbols) 400 `validation_failed` on `q`, and a NUL makes the
    /// URL itself bad (400 `bad_request`).
    func testSearchSyntaxTypedByUsersGetsTheContractsAnswer() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        try postVideo(owner, rallyId: rallyId, title: "Rally title NOT AND OR NEAR stage")
        let withWords = [
            "NOT", "rally NOT", "NOT rally", "rally AND", "OR OR", "AND", "NEAR", "NEAR(rally stage)", "rally NEAR/2 stage",
            "\"rally", "rally\"", "\"rally stage\"", "title:x", "title:rally", "description:", "{title}: rally", "x:",
            "rally*", "*rally", "ral*ly", "^rally", "rally^", "+rally", "-rally", "(rally", "rally)", "[rally]",
            "rally OR stage", "rally - stage", "a'b", "'; DROP TABLE videos; --", "Ωé🏎", "NOT NOT NOT *",
        ]
        let withoutWords = ["\"", "*", "()", "%", "_", "\\", "🏁", String(repeating: "(", count: 500)]
        for kind in ["videos", "users"] {
            for q in withWords {
                let result = try client.request("GET", "/v1/search/\(kind)?q=\(queryValue(q))", token: owner.token)
                XCTAssertEqual(result.status, 200, "\(kind) q=\(q.debugDescription) -> \(result)")
                XCTAssertNotNil(result.object?["items"] as? [Any], "a page: \(result)")
            }
            for q in withoutWords {
                assertError(try client.request("GET", "/v1/search/\(kind)?q=\(queryValue(q))", token: owner.token),
                            400, "validation_failed", field: "q", "\(kind) q=\(q.prefix(60).debugDescription)")
            }
            assertError(try client.request("GET", "/v1/search/\(kind)?q=\(queryValue("rally\u{0}"))", token: owner.token),
                        400, "bad_request", "\(kind) q with a NUL")
        }
        XCTAssertEqual(try client.request("GET", "/healthz").status, 200, "still healthy")
    }

    func testHiddenVideosAreAbsentForOthers() throws {
        let owner = try client.signup()
        let stranger = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let tag = Fake.word()
        let video = try postVideo(owner, rallyId: rallyId, title: "Hidden \(tag)")
        let id = video["id"] as? String ?? ""
        XCTAssertEqual(ids(try search("videos", tag, stranger.token)), [id])
        assertSuccess(try client.request("POST", "/v1/moderation/videos/\(id)/hide", token: try moderator().token), 200)
        XCTAssertEqual(ids(try search("videos", tag, stranger.token)), [], "hidden from a stranger")
        let asOwner = try search("videos", tag, owner.token)
        XCTAssertEqual(ids(asOwner), [id], "the owner still finds it")
        XCTAssertEqual(asOwner.first?["hidden"] as? Bool, true)
        XCTAssertEqual(ids(try search("videos", tag, try admin().token)), [id], "an admin still finds it")
    }

    func testSearchFollowsEditsAndDeletions() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let before = Fake.word()
        let after = Fake.word()
        let id = try postVideo(owner, rallyId: rallyId, title: "Edit \(before)")["id"] as? String ?? ""
        assertSuccess(try client.request("PATCH", "/v1/videos/\(id)", json: ["title": "Edit \(after)"], token: owner.token), 200)
        XCTAssertEqual(ids(try search("videos", before, owner.token)), [], "the old title is no longer found")
        XCTAssertEqual(ids(try search("videos", after, owner.token)), [id])
        assertSuccess(try client.request("DELETE", "/v1/videos/\(id)", token: owner.token), 204)
        XCTAssertEqual(ids(try search("videos", after, owner.token)), [], "a deleted video is not found")
    }
}

/// The bounds of a search (issue 10 and 9): `q` is at most 200 characters, a one-letter last word
/// is a whole word, tiers rank and page without duplicates.
final class SearchBoundTests: ServerTestCase {
    private func search(_ kind: String, _ q: String, _ token: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try firstPage("/v1/search/\(kind)?q=\(queryValue(q))", token, file: file, line: line)
    }

    func testQOfMoreThan200CharactersIsRefused() throws {
        let viewer = try client.signup()
        for kind in ["users", "videos"] {
            let longest = String(repeating: "a", count: 200)
            assertSuccess(try client.request("GET", "/v1/search/\(kind)?q=\(longest)", token: viewer.token), 200, "\(kind): 200 characters")
            assertSuccess(try client.request("GET", "/v1/search/\(kind)?q=\(queryValue("  " + longest + "  "))", token: viewer.token), 200,
                          "\(kind): 200 characters once trimmed")
            assertError(try client.request("GET", "/v1/search/\(kind)?q=\(longest)a", token: viewer.token), 400, "validation_failed", field: "q",
                        "\(kind): 201 characters")
            // Characters, not bytes: 200 accented letters (400 bytes) pass, 201 do not.
            assertSuccess(try client.request("GET", "/v1/search/\(kind)?q=\(queryValue(String(repeating: "é", count: 200)))", token: viewer.token), 200)
            assertError(try client.request("GET", "/v1/search/\(kind)?q=\(queryValue(String(repeating: "é", count: 201)))", token: viewer.token),
                        400, "validation_failed", field: "q", "\(kind): 201 accented characters")
            assertError(try client.request("GET", "/v1/search/\(kind)?q=\(queryValue(String(repeating: "rally ", count: 40)))", token: viewer.token),
                        400, "validation_failed", field: "q", "\(kind): 40 words, 239 characters")
        }
    }

    /// SearchQuery.minimumPrefixLength: the last word is a prefix from 2 characters on; one
    /// letter matches only the whole word.
    func testAOneLetterLastWordMatchesWholeWordsOnly() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let tag = Fake.word()
        let rally = try postVideo(owner, rallyId: rallyId, title: "\(tag) Rally")
        let letter = try postVideo(owner, rallyId: rallyId, title: "\(tag) R stage")
        XCTAssertEqual(Set(ids(try search("videos", "\(tag) r", owner.token))), [letter["id"] as? String ?? ""], "one letter: the word R only")
        XCTAssertEqual(Set(ids(try search("videos", "\(tag) ra", owner.token))), [rally["id"] as? String ?? ""], "two letters: a prefix")
        XCTAssertEqual(Set(ids(try search("videos", "\(tag) RAL", owner.token))), [rally["id"] as? String ?? ""], "three letters: a prefix")

        let name = Fake.word("q")
        let single = try client.signup(displayName: "\(name) B")
        let prefixed = try client.signup(displayName: "\(name) Bjorn")
        XCTAssertEqual(Set(ids(try search("users", "\(name) b", owner.token))), [single.id], "one letter: the word B only")
        XCTAssertEqual(Set(ids(try search("users", "\(name) bj", owner.token))), [prefixed.id])
    }

    func testTiersRankAndPageWithoutDuplicates() throws {
        let owner = try client.signup()
        let rallyId = try createRally()["id"] as? String ?? ""
        let tag = Fake.word()
        // Oldest first, so that a newest-first order alone would list them backwards. Within a
        // tier search orders by seq, the order the videos were written in: no two share one.
        let title = try postVideo(owner, rallyId: rallyId, title: "\(tag) Fafe jump")
        let description = try postVideo(owner, rallyId: rallyId, title: "\(tag) onboard", description: "Over Fafe")
        let prefix = try postVideo(owner, rallyId: rallyId, title: "\(tag) Fafeira")
        let newerTitle = try postVideo(owner, rallyId: rallyId, title: "Fafe \(tag)")
        let expected = [newerTitle, title, description, prefix].map { $0["id"] as? String ?? "" }
        XCTAssertEqual(ids(try search("videos", "\(tag) fafe", owner.token)), expected,
                       "whole words in the title, then whole words anywhere, then prefix only; newest first within each")
        let paged = try allPages("/v1/search/videos?q=\(queryValue("\(tag) fafe"))", owner.token, limit: 1).items
        XCTAssertEqual(ids(paged), expected, "one per page, across the tiers, nothing twice")
    }
}
