import XCTest

/// API.md "Text": lengths count characters (grapheme clusters), a text holds at most 4 scalars per
/// allowed character and one character at most 10, so stacked combining marks cannot make a
/// "short" text large. Checked on every field with a limit, through the real binary.
final class TextLimitTests: ServerTestCase {
    /// `a` followed by 30,000 combining acute accents: one character, 60 KB of UTF-8.
    private let thirtyThousandAccents = "a" + String(repeating: "\u{301}", count: 30_000)
    /// 500 characters of 4 scalars each plus one more mark: 2,001 scalars in 500 characters.
    private let overBudget = String(repeating: "e\u{301}\u{302}\u{303}", count: 500) + "\u{304}"
    /// Eleven scalars in one character (Zalgo-ish): over the per-character bound in any field.
    private let zalgo = "Z" + String(repeating: "\u{336}", count: 10) + "algo"
    /// A family emoji: 7 scalars joined by ZWJ, one character.
    private let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"

    private func comment(_ videoId: String, _ content: String, _ token: String) throws -> HTTPResult {
        try client.request("POST", "/v1/videos/\(videoId)/comments", json: ["content": content], token: token)
    }

    func testDisplayNameOfThirtyThousandAccentsIsRefused() throws {
        let signup = try client.request("POST", "/v1/users", json: [
            "username": Fake.username(), "email": Fake.email(for: Fake.username()), "password": Fake.password(),
            "displayName": thirtyThousandAccents,
        ])
        assertError(signup, 400, "validation_failed", field: "displayName", "sign-up")
        let account = try client.signup()
        assertError(try client.request("PATCH", "/v1/users/me", json: ["displayName": thirtyThousandAccents], token: account.token),
                    400, "validation_failed", field: "displayName", "profile edit")
        assertError(try client.request("PATCH", "/v1/users/me", json: ["displayName": zalgo], token: account.token),
                    400, "validation_failed", field: "displayName", "eleven scalars in one character")
        let family = assertSuccess(try client.request("PATCH", "/v1/users/me", json: ["displayName": "Fans \(self.family)"], token: account.token), 200)
        XCTAssertEqual(family["displayName"] as? String, "Fans \(self.family)", "kept exactly")
    }

    func testCommentBudgets() throws {
        let owner = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let plain = String(repeating: "x", count: 500)
        XCTAssertEqual(assertSuccess(try comment(id, plain, owner.token), 201)["content"] as? String, plain, "500 plain characters")
        let four = String(repeating: "e\u{301}\u{302}\u{303}", count: 500)
        XCTAssertEqual(assertSuccess(try comment(id, four, owner.token), 201)["content"] as? String, four, "500 characters of 4 scalars: 2,000 scalars")
        assertError(try comment(id, overBudget, owner.token), 400, "validation_failed", field: "content", "2,001 scalars in 500 characters")
        assertError(try comment(id, thirtyThousandAccents, owner.token), 400, "validation_failed", field: "content", "one character of 30,001 scalars")
        assertError(try comment(id, "nice " + zalgo, owner.token), 400, "validation_failed", field: "content", "eleven scalars in one character")
        // 500 characters, 506 scalars: refused if the family's 7 scalars counted as 7 characters.
        let withFamily = String(repeating: "x", count: 499) + family
        let stored = assertSuccess(try comment(id, withFamily, owner.token), 201, "499 letters and a family emoji")
        XCTAssertEqual(stored["content"] as? String, withFamily, "an emoji family counts as one character")
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["commentsCount"]), 3, "refused comments are not counted")
        let page = try firstPage("/v1/videos/\(id)/comments", owner.token)
        XCTAssertEqual(page.count, 3)
    }

    func testEveryOtherLimitedFieldUsesTheSameRule() throws {
        let owner = try client.signup()
        let stranger = try client.signup()
        let admin = try admin()
        let rallyId = try createRally()["id"] as? String ?? ""
        let video = try postVideo(owner, rallyId: rallyId)
        let videoId = video["id"] as? String ?? ""

        let rallyBody: [String: Any] = ["name": "Rally \(Fake.word())", "country": "Finland", "startDate": UTCDate.today(), "endDate": UTCDate.today(1)]
        for (field, value) in [("name", thirtyThousandAccents), ("name", zalgo), ("country", thirtyThousandAccents), ("country", zalgo)] {
            var body = rallyBody
            body[field] = value
            assertError(try client.request("POST", "/v1/rallies", json: body, token: admin.token), 400, "validation_failed", field: field, "rally \(field)")
        }
        var familyRally = rallyBody
        familyRally["name"] = "Rally \(family)"
        XCTAssertEqual(assertSuccess(try client.request("POST", "/v1/rallies", json: familyRally, token: admin.token), 201)["name"] as? String, "Rally \(family)")

        let videoBody: [String: Any] = ["youtubeId": Fake.youtubeId(), "title": "Stage", "rallyId": rallyId, "day": 1]
        // A 100-character title of 4 scalars each is allowed; one more scalar is not.
        let titleBudget = String(repeating: "e\u{301}\u{302}\u{303}", count: 100)
        for (field, value) in [("title", thirtyThousandAccents), ("title", titleBudget + "\u{304}"), ("title", zalgo),
                               ("description", thirtyThousandAccents), ("description", zalgo)] {
            var body = videoBody
            body[field] = value
            assertError(try client.request("POST", "/v1/videos", json: body, token: owner.token), 400, "validation_failed", field: field, "new video \(field)")
            assertError(try client.request("PATCH", "/v1/videos/\(videoId)", json: [field: value], token: owner.token),
                        400, "validation_failed", field: field, "video edit \(field)")
        }
        XCTAssertEqual(assertSuccess(try client.request("PATCH", "/v1/videos/\(videoId)", json: ["title": titleBudget], token: owner.token), 200)["title"] as? String,
                       titleBudget, "100 characters, 400 scalars")

        for reason in [thirtyThousandAccents, zalgo] {
            assertError(try client.request("POST", "/v1/videos/\(videoId)/flags", json: ["reason": reason], token: stranger.token),
                        400, "validation_failed", field: "reason", "flag reason")
        }
        assertSuccess(try client.request("POST", "/v1/videos/\(videoId)/flags", json: ["reason": "Spam \(family)"], token: stranger.token), 201)

        for path in ["/v1/search/users", "/v1/search/videos"] {
            assertError(try client.request("GET", "\(path)?q=\(queryValue("a" + String(repeating: "\u{301}", count: 801)))", token: owner.token),
                        400, "validation_failed", field: "q", "\(path) one character of 802 scalars")
            assertError(try client.request("GET", "\(path)?q=\(queryValue(zalgo))", token: owner.token),
                        400, "validation_failed", field: "q", "\(path) eleven scalars in one character")
        }
    }
}
