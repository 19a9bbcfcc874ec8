import XCTest

/// Comments: trimmed content, oldest-first lists, and who may delete one.
final class CommentTests: ServerTestCase {
    private func comment(_ videoId: String, _ content: Any, _ token: String) throws -> HTTPResult {
        try client.request("POST", "/v1/videos/\(videoId)/comments", json: ["content": content], token: token)
    }

    func testCommentAnswersTheActivityAndCounts() throws {
        let owner = try client.signup()
        let author = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let started = Date()
        let activity = assertSuccess(try comment(id, "  Flat out over the crest! 🚀  ", author.token), 201)
        assertActivity(activity, type: "comment")
        XCTAssertEqual(activity["content"] as? String, "Flat out over the crest! 🚀", "stored trimmed")
        XCTAssertEqual(child(activity, "fromUser")?["id"] as? String, author.id)
        XCTAssertEqual(child(activity, "toUser")?["id"] as? String, owner.id, "toUser is the video's owner")
        XCTAssertEqual(child(activity, "video")?["id"] as? String, id)
        assertTimestamp(activity["createdAt"], near: started)
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["commentsCount"]), 1)

        let listed = try firstPage("/v1/videos/\(id)/comments", owner.token)
        XCTAssertEqual(ids(listed), [activity["id"] as? String ?? ""])
        XCTAssertEqual(listed.first?["content"] as? String, "Flat out over the crest! 🚀")
        XCTAssertTrue(isJSONBool(child(listed.first, "fromUser")?["isFollowing"]), "fromUser carries isFollowing: \(listed)")
        StoredCounters.assertAllExact(server)
    }

    func testContentIsOneTo500CharactersWithoutNUL() throws {
        let owner = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        for (label, content) in [("empty", "" as Any), ("blank", " \n\t " as Any), ("501 characters", String(repeating: "é", count: 501) as Any),
                                 ("a NUL byte", "nul\u{0}byte" as Any), ("a number", 7 as Any)] {
            assertError(try comment(id, content, owner.token), 400, "validation_failed", field: "content", label)
        }
        assertError(try client.request("POST", "/v1/videos/\(id)/comments", json: [String: Any](), token: owner.token),
                    400, "validation_failed", field: "content", "no content")
        let longest = assertSuccess(try comment(id, " " + String(repeating: "🏁", count: 500) + " ", owner.token), 201, "500 characters after trimming")
        XCTAssertEqual(longest["content"] as? String, String(repeating: "🏁", count: 500))
        let exact = assertSuccess(try comment(id, Hostile.quotes + Hostile.sql + Hostile.decomposed, owner.token), 201)
        XCTAssertEqual(exact["content"] as? String, Hostile.quotes + Hostile.sql + Hostile.decomposed, "any valid UTF-8 kept exactly")
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["commentsCount"]), 2, "refused comments are not counted")
        assertError(try comment("no-such-video", "Hello", owner.token), 404, "not_found")
        assertError(try client.request("GET", "/v1/videos/no-such-video/comments", token: owner.token), 404, "not_found")
    }

    func testListIsOldestFirst() throws {
        let owner = try client.signup()
        let people = [try client.signup(), try client.signup(), owner]
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        var made: [String] = []
        for (index, person) in (people + people).enumerated() {
            made.append(assertSuccess(try comment(id, "comment \(index)", person.token), 201)["id"] as? String ?? "")
        }
        let listed = try firstPage("/v1/videos/\(id)/comments", people[0].token)
        // Oldest first by (createdAt, id) as the server answered them: the newest-first order reversed.
        let listedPositions = positions(listed) { $0["id"] as? String ?? "" }
        let expected = Array(newestFirst(made, tie: .id) { listedPositions[$0] }.reversed())
        XCTAssertEqual(ids(listed), expected, "oldest first")
        XCTAssertEqual(Set(ids(listed)), Set(made))
        XCTAssertEqual(listed.map { $0["content"] as? String ?? "" }, expected.map { "comment \(made.firstIndex(of: $0) ?? -1)" })
        for activity in listed { assertActivity(activity, type: "comment") }
    }

    func testWhoMayDeleteAComment() throws {
        let owner = try client.signup()
        let author = try client.signup()
        let stranger = try client.signup()
        let id = try rallyAndVideo(owner: owner).video["id"] as? String ?? ""
        let deleters: [(String, String)] = [
            ("its author", author.token), ("the video's owner", owner.token),
            ("a moderator", try moderator().token), ("an admin", try admin().token),
        ]
        for (label, token) in deleters {
            let commentId = assertSuccess(try comment(id, "to be deleted by \(label)", author.token), 201)["id"] as? String ?? ""
            XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["commentsCount"]), 1)
            assertError(try client.request("DELETE", "/v1/comments/\(commentId)", token: stranger.token), 403, "forbidden",
                        "a stranger deleting someone else's comment on someone else's video")
            assertSuccess(try client.request("DELETE", "/v1/comments/\(commentId)", token: token), 204, label)
            XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["commentsCount"]), 0, "after deletion by \(label)")
            XCTAssertFalse(ids(try firstPage("/v1/videos/\(id)/comments", owner.token)).contains(commentId))
            assertError(try client.request("DELETE", "/v1/comments/\(commentId)", token: token), 404, "not_found", "deleting twice")
        }
        assertError(try client.request("DELETE", "/v1/comments/no-such-comment", token: owner.token), 404, "not_found")

        assertSuccess(try client.request("PUT", "/v1/videos/\(id)/like", token: author.token), 200)
        let likeIds = try server.withDatabase { try $0.strings("SELECT id FROM activities WHERE type = 1 AND video_id = \(id)") }
        XCTAssertEqual(likeIds.count, 1)
        for likeId in likeIds {
            assertError(try client.request("DELETE", "/v1/comments/\(likeId)", token: author.token), 404, "not_found", "the id of a like")
        }
        XCTAssertEqual(jsonInt(try getObject("/v1/videos/\(id)", owner.token)["likesCount"]), 1, "the like is still there")
        StoredCounters.assertAllExact(server)
    }
}
