import XCTest

/// Rallies: admin-only writes, generated days, statuses from the server's UTC clock, season lists.
final class RallyTests: ServerTestCase {
    private func post(_ body: [String: Any], _ token: String) throws -> HTTPResult {
        try client.request("POST", "/v1/rallies", json: body, token: token)
    }

    private func body(start: String, end: String, name: String = "Rally Sweden", country: String = "Sweden") -> [String: Any] {
        ["name": name, "country": country, "startDate": start, "endDate": end]
    }

    func testCreateAnswersTheRallyWithOneDayPerDate() throws {
        let admin = try admin()
        let rally = assertSuccess(try post(body(start: "2024-02-27", end: "2024-03-02", name: "Rally Sweden"), admin.token), 201)
        assertRally(rally)
        XCTAssertEqual(rally["country"] as? String, "Sweden")
        XCTAssertEqual(rally["startDate"] as? String, "2024-02-27")
        XCTAssertEqual(rally["endDate"] as? String, "2024-03-02")
        XCTAssertEqual((rally["days"] as? [[String: Any]])?.compactMap { $0["date"] as? String },
                       ["2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01", "2024-03-02"], "days across a leap day and a month end")
        XCTAssertEqual(jsonInt(rally["videosCount"]), 0)
        XCTAssertEqual(rally["status"] as? String, "finished")

        let fetched = try getObject("/v1/rallies/\(rally["id"] as? String ?? "")", admin.token)
        XCTAssertEqual(fetched["id"] as? String, rally["id"] as? String)
        XCTAssertEqual(fetched["days"] as? NSArray, rally["days"] as? NSArray, "GET answers the same days")

        let oneDay = assertSuccess(try post(body(start: "2023-12-31", end: "2023-12-31"), admin.token), 201, "a one-day rally")
        XCTAssertEqual((oneDay["days"] as? [Any])?.count, 1)
        let longest = assertSuccess(try post(body(start: "2024-01-01", end: "2024-01-31"), admin.token), 201, "31 days is the longest span")
        XCTAssertEqual((longest["days"] as? [Any])?.count, 31)
        assertRally(longest)
    }

    func testStatusesFollowTodaysUTCDate() throws {
        let admin = try admin()
        let today = UTCDate.today()
        func make(_ from: Int, _ to: Int) throws -> [String: Any] {
            assertSuccess(try post(body(start: UTCDate.today(from), end: UTCDate.today(to)), admin.token), 201, "rally \(from)...\(to) days from today")
        }
        let cases: [(from: Int, to: Int, status: String)] = [
            (10, 12, "upcoming"), (8, 9, "upcoming"), (7, 9, "imminent"), (3, 5, "imminent"), (1, 2, "imminent"),
            (0, 2, "live"), (-1, 1, "live"), (-2, 0, "live"), (-3, -1, "finished"), (-40, -38, "finished"),
        ]
        for (from, to, status) in cases {
            let rally = try make(from, to)
            XCTAssertEqual(rally["status"] as? String, status, "a rally from today\(from >= 0 ? "+" : "")\(from) to today\(to >= 0 ? "+" : "")\(to) (today is \(today)) on creation")
            let fetched = try getObject("/v1/rallies/\(rally["id"] as? String ?? "")", admin.token)
            XCTAssertEqual(fetched["status"] as? String, status, "the same status on GET")
        }

        // Day statuses use the same words for their own dates.
        let long = try make(-2, 9)
        assertRally(long)
        let dayStatuses = (long["days"] as? [[String: Any]] ?? []).map { $0["status"] as? String ?? "?" }
        XCTAssertEqual(dayStatuses, ["finished", "finished", "live"] + Array(repeating: "imminent", count: 7) + ["upcoming", "upcoming"],
                       "days from today-2 to today+9: \(long)")
        XCTAssertEqual(long["status"] as? String, "live")
    }

    func testOnlyAdminsWriteRallies() throws {
        let user = try client.signup()
        let moderator = try moderator()
        let admin = try admin()
        let valid = body(start: "2025-05-01", end: "2025-05-03")
        assertError(try post(valid, user.token), 403, "forbidden", "a plain user")
        assertError(try post(valid, moderator.token), 403, "forbidden", "a moderator")
        assertError(try client.request("POST", "/v1/rallies", json: valid), 401, "unauthorized", "no session")

        let rally = assertSuccess(try post(valid, admin.token), 201)
        let id = rally["id"] as? String ?? ""
        for account in [user, moderator] {
            assertError(try client.request("PATCH", "/v1/rallies/\(id)", json: ["name": "Hijacked"], token: account.token), 403, "forbidden", "PATCH by \(account.user["role"] ?? "")")
            assertError(try client.request("DELETE", "/v1/rallies/\(id)", token: account.token), 403, "forbidden", "DELETE by \(account.user["role"] ?? "")")
        }
        XCTAssertEqual(try getObject("/v1/rallies/\(id)", user.token)["name"] as? String, "Rally Sweden", "anyone signed in reads a rally")
    }

    func testInvalidRalliesNameTheField() throws {
        let admin = try admin()
        let cases: [(String, [String: Any], String)] = [
            ("end before start", body(start: "2025-03-10", end: "2025-03-09"), "endDate"),
            ("32 days", body(start: "2025-01-01", end: "2025-02-01"), "endDate"),
            ("impossible start", body(start: "2014-02-30", end: "2014-03-02"), "startDate"),
            ("slashes", body(start: "2014/01/01", end: "2014-01-02"), "startDate"),
            ("impossible end", body(start: "2014-01-01", end: "2014-13-01"), "endDate"),
            ("end not a date", body(start: "2014-01-01", end: "tomorrow"), "endDate"),
            ("start with a time", body(start: "2014-01-01T00:00:00Z", end: "2014-01-02"), "startDate"),
            ("start a number", ["name": "X", "country": "Y", "startDate": 20140101, "endDate": "2014-01-02"], "startDate"),
            ("no start", ["name": "X", "country": "Y", "endDate": "2014-01-02"], "startDate"),
            ("no end", ["name": "X", "country": "Y", "startDate": "2014-01-02"], "endDate"),
            ("empty name", body(start: "2014-01-01", end: "2014-01-02", name: ""), "name"),
            ("blank name", body(start: "2014-01-01", end: "2014-01-02", name: "   "), "name"),
            ("101-character name", body(start: "2014-01-01", end: "2014-01-02", name: String(repeating: "é", count: 101)), "name"),
            ("no name", ["country": "Y", "startDate": "2014-01-01", "endDate": "2014-01-02"], "name"),
            ("empty country", body(start: "2014-01-01", end: "2014-01-02", country: ""), "country"),
            ("61-character country", body(start: "2014-01-01", end: "2014-01-02", country: String(repeating: "a", count: 61)), "country"),
        ]
        for (label, invalid, field) in cases {
            assertError(try post(invalid, admin.token), 400, "validation_failed", field: field, label)
        }
        assertSuccess(try post(body(start: "2014-01-01", end: "2014-01-02", name: String(repeating: "é", count: 100),
                                    country: String(repeating: "a", count: 60)), admin.token), 201, "100-character name, 60-character country")
    }

    func testSeasonListIsCompleteAndOrderedByStartDate() throws {
        let admin = try admin()
        // 2091 belongs to this test alone.
        let late = assertSuccess(try post(body(start: "2091-12-30", end: "2092-01-02", name: "Late"), admin.token), 201)
        let early = assertSuccess(try post(body(start: "2091-01-20", end: "2091-01-23", name: "Early"), admin.token), 201)
        let middle = assertSuccess(try post(body(start: "2091-06-01", end: "2091-06-03", name: "Middle"), admin.token), 201)
        var many: [String] = []
        for month in 1...9 {
            let rally = assertSuccess(try post(body(start: "2091-0\(month)-10", end: "2091-0\(month)-11", name: "M\(month)"), admin.token), 201)
            many.append(rally["id"] as? String ?? "")
        }
        let list = try getObject("/v1/rallies?season=2091", admin.token)
        let items = pageItems(list)
        for item in items { assertRally(item) }
        XCTAssertEqual(Set(ids(items)), Set(ids([late, early, middle]) + many), "season 2091 lists every rally starting in 2091, no cursor")
        let starts = items.compactMap { $0["startDate"] as? String }
        XCTAssertEqual(starts, starts.sorted(), "ordered by startDate")
        XCTAssertEqual(items.first?["id"] as? String, many.first, "M1 starts on 2091-01-10, before Early")
        XCTAssertEqual(items.last?["id"] as? String, late["id"] as? String)
        XCTAssertTrue((list["nextCursor"] as? String) == nil, "the season list is complete: \(list)")

        XCTAssertEqual(pageItems(try getObject("/v1/rallies?season=2092", admin.token)).count, 0,
                       "a rally starting 2091-12-30 belongs to season 2091 only")
        let everything = pageItems(try getObject("/v1/rallies", admin.token))
        XCTAssertTrue(Set(ids(everything)).isSuperset(of: ids(items)), "without season, every rally")
        let allStarts = everything.compactMap { $0["startDate"] as? String }
        XCTAssertEqual(allStarts, allStarts.sorted(), "ordered by startDate")

        for bad in ["31", "abcd", "20910", "2091-01", "-203"] {
            assertError(try client.request("GET", "/v1/rallies?season=\(bad)", token: admin.token), 400, "validation_failed", field: "season", "season=\(bad)")
        }
    }

    func testUnknownRallyIsNotFound() throws {
        let admin = try admin()
        assertError(try client.request("GET", "/v1/rallies/no-such-rally", token: admin.token), 404, "not_found")
        assertError(try client.request("PATCH", "/v1/rallies/no-such-rally", json: ["name": "X"], token: admin.token), 404, "not_found")
        assertError(try client.request("DELETE", "/v1/rallies/no-such-rally", token: admin.token), 404, "not_found")
    }

    func testPatchMergesAndRegeneratesDays() throws {
        let admin = try admin()
        let rally = assertSuccess(try post(body(start: "2026-08-01", end: "2026-08-03", name: "Rally Finland", country: "Finland"), admin.token), 201)
        let id = rally["id"] as? String ?? ""
        let renamed = assertSuccess(try client.request("PATCH", "/v1/rallies/\(id)", json: ["name": "Secto Rally Finland"], token: admin.token), 200)
        XCTAssertEqual(renamed["name"] as? String, "Secto Rally Finland")
        XCTAssertEqual(renamed["country"] as? String, "Finland", "only the given keys change")
        XCTAssertEqual(renamed["startDate"] as? String, "2026-08-01")
        XCTAssertEqual(renamed["endDate"] as? String, "2026-08-03")

        let longer = assertSuccess(try client.request("PATCH", "/v1/rallies/\(id)", json: ["endDate": "2026-08-05"], token: admin.token), 200)
        assertRally(longer)
        XCTAssertEqual((longer["days"] as? [Any])?.count, 5, "days follow the new dates")
        XCTAssertEqual(try getObject("/v1/rallies/\(id)", admin.token)["endDate"] as? String, "2026-08-05", "stored")

        assertError(try client.request("PATCH", "/v1/rallies/\(id)", json: ["endDate": "2026-07-31"], token: admin.token),
                    400, "validation_failed", field: "endDate", "an end before the start")
        assertError(try client.request("PATCH", "/v1/rallies/\(id)", json: ["startDate": "2026-06-30"], token: admin.token),
                    400, "validation_failed", field: "endDate", "a start that makes the span over 31 days")
        assertError(try client.request("PATCH", "/v1/rallies/\(id)", json: ["startDate": "2026-02-30"], token: admin.token),
                    400, "validation_failed", field: "startDate")
        assertError(try client.request("PATCH", "/v1/rallies/\(id)", json: ["name": ""], token: admin.token),
                    400, "validation_failed", field: "name")
        let after = try getObject("/v1/rallies/\(id)", admin.token)
        XCTAssertEqual(after["startDate"] as? String, "2026-08-01", "a refused PATCH changes nothing")
        XCTAssertEqual(after["name"] as? String, "Secto Rally Finland")
    }

    func testPatchThatWouldStrandAVideoIsAConflict() throws {
        let admin = try admin()
        let owner = try client.signup()
        let rally = assertSuccess(try post(body(start: "2026-09-01", end: "2026-09-04"), admin.token), 201)
        let id = rally["id"] as? String ?? ""
        try postVideo(owner, rallyId: id, day: 4)
        assertError(try client.request("PATCH", "/v1/rallies/\(id)", json: ["endDate": "2026-09-03"], token: admin.token),
                    409, "conflict", "day 4 has a video")
        assertError(try client.request("PATCH", "/v1/rallies/\(id)", json: ["startDate": "2026-09-02"], token: admin.token),
                    409, "conflict", "a later start also drops day 4")
        XCTAssertEqual(try getObject("/v1/rallies/\(id)", admin.token)["endDate"] as? String, "2026-09-04", "unchanged")
        let moved = assertSuccess(try client.request("PATCH", "/v1/rallies/\(id)", json: ["startDate": "2026-09-11", "endDate": "2026-09-15"], token: admin.token),
                                  200, "moving the rally while keeping day 4")
        XCTAssertEqual((moved["days"] as? [Any])?.count, 5)
        XCTAssertEqual(jsonInt(moved["videosCount"]), 1)
    }

    func testDeleteIsRefusedWhileVideosReferenceIt() throws {
        let admin = try admin()
        let owner = try client.signup()
        let rally = assertSuccess(try post(body(start: "2026-10-01", end: "2026-10-03"), admin.token), 201)
        let id = rally["id"] as? String ?? ""
        let video = try postVideo(owner, rallyId: id, day: 2)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(id)", admin.token)["videosCount"]), 1, "videosCount counts the video")
        assertError(try client.request("DELETE", "/v1/rallies/\(id)", token: admin.token), 409, "conflict")
        _ = try getObject("/v1/rallies/\(id)", admin.token)
        assertSuccess(try client.request("DELETE", "/v1/videos/\(video["id"] as? String ?? "")", token: owner.token), 204)
        XCTAssertEqual(jsonInt(try getObject("/v1/rallies/\(id)", admin.token)["videosCount"]), 0)
        assertSuccess(try client.request("DELETE", "/v1/rallies/\(id)", token: admin.token), 204)
        assertError(try client.request("GET", "/v1/rallies/\(id)", token: admin.token), 404, "not_found")
        XCTAssertFalse(ids(pageItems(try getObject("/v1/rallies?season=2026", admin.token))).contains(id), "gone from the season list")
    }
}
