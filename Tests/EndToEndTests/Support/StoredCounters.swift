import Foundation
import Storage
import XCTest

/// Stored counters against the rows they count, read straight from the server's database.
/// Activity types: 1 like, 2 comment, 3 inappropriate (flag), 4 follow. A banned user's likes,
/// comments and videos count nowhere while the ban lasts (ARCHITECTURE.md, "Bans"), and a hidden
/// video counts in no `videos_count` (API.md "Visibility": the videos everyone can see).
enum StoredCounters {
    /// Every counter that disagrees with a COUNT(*) of its rows, one line each (empty when all agree).
    static let driftQueries: [(label: String, sql: SQL)] = [
        ("videos.likes_count", "SELECT v.id || ' stored ' || v.likes_count || ' counted ' || (SELECT COUNT(*) FROM activities a WHERE a.type = 1 AND a.video_id = v.id AND a.from_user_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL)) FROM videos v WHERE v.likes_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 1 AND a.video_id = v.id AND a.from_user_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL))"),
        ("videos.comments_count", "SELECT v.id || ' stored ' || v.comments_count || ' counted ' || (SELECT COUNT(*) FROM activities a WHERE a.type = 2 AND a.video_id = v.id AND a.from_user_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL)) FROM videos v WHERE v.comments_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 2 AND a.video_id = v.id AND a.from_user_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL))"),
        ("videos.flags_count", "SELECT v.id || ' stored ' || v.flags_count || ' counted ' || (SELECT COUNT(*) FROM activities a WHERE a.type = 3 AND a.video_id = v.id) FROM videos v WHERE v.flags_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 3 AND a.video_id = v.id)"),
        ("users.followers_count", "SELECT u.username || ' stored ' || u.followers_count || ' counted ' || (SELECT COUNT(*) FROM activities a WHERE a.type = 4 AND a.to_user_id = u.id) FROM users u WHERE u.followers_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 4 AND a.to_user_id = u.id)"),
        ("users.following_count", "SELECT u.username || ' stored ' || u.following_count || ' counted ' || (SELECT COUNT(*) FROM activities a WHERE a.type = 4 AND a.from_user_id = u.id) FROM users u WHERE u.following_count <> (SELECT COUNT(*) FROM activities a WHERE a.type = 4 AND a.from_user_id = u.id)"),
        ("users.videos_count", "SELECT u.username || ' stored ' || u.videos_count || ' counted ' || (SELECT COUNT(*) FROM videos v WHERE v.owner_id = u.id AND v.hidden = FALSE AND u.banned_at IS NULL) FROM users u WHERE u.videos_count <> (SELECT COUNT(*) FROM videos v WHERE v.owner_id = u.id AND v.hidden = FALSE AND u.banned_at IS NULL)"),
        ("rallies.videos_count", "SELECT r.id || ' stored ' || r.videos_count || ' counted ' || (SELECT COUNT(*) FROM videos v WHERE v.rally_id = r.id AND v.hidden = FALSE AND v.owner_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL)) FROM rallies r WHERE r.videos_count <> (SELECT COUNT(*) FROM videos v WHERE v.rally_id = r.id AND v.hidden = FALSE AND v.owner_id NOT IN (SELECT id FROM users WHERE banned_at IS NOT NULL))"),
        ("activities pointing at nothing", "SELECT a.id || ' type ' || a.type FROM activities a WHERE a.from_user_id NOT IN (SELECT id FROM users) OR a.to_user_id NOT IN (SELECT id FROM users) OR (a.video_id IS NOT NULL AND a.video_id NOT IN (SELECT id FROM videos))"),
    ]

    /// Fails the test for every stored counter in the database that disagrees with its rows.
    static func assertAllExact(_ server: TestServer, _ context: String = "", file: StaticString = #filePath, line: UInt = #line) {
        do {
            try server.withDatabase { db in
                for (label, sql) in driftQueries {
                    let drift = try db.strings(sql)
                    XCTAssertEqual(drift, [], "\(context.isEmpty ? "" : context + ": ")\(label) disagrees with the rows it counts", file: file, line: line)
                }
            }
        } catch {
            XCTFail("reading the server's database: \(error)", file: file, line: line)
        }
    }

    /// `SELECT column FROM table WHERE id = ?` (names from the test itself, never from input).
    static func stored(_ server: TestServer, _ table: String, _ column: String, id: String) throws -> Int {
        try server.withDatabase { try $0.int("SELECT \(unsafe: column) FROM \(unsafe: table) WHERE id = \(id)") }
    }

    /// `SELECT COUNT(*) FROM activities WHERE type = ? AND video_id = ?`.
    static func activities(_ server: TestServer, type: Int, videoId: String) throws -> Int {
        try server.withDatabase { try $0.int("SELECT COUNT(*) FROM activities WHERE type = \(type) AND video_id = \(videoId)") }
    }
}
