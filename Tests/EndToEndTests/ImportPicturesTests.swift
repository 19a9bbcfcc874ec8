import Foundation
import XCTest

/// `pacenote import-parse DIR --files FILES` on the real binary: the users' Parse File pictures
/// are attached from FILES and served like uploads, the files that could not be used are named
/// by objectId on stderr without changing the exit status, and a second run adds nothing.
///
/// On SQLite, and on PostgreSQL in the second pass of `scripts/test` (PACENOTE_TEST_DATABASE=
/// postgres: every `TestServer` and its commands get a schema of their own in the cluster).
final class ImportPicturesTests: CommandTestCase {
    /// Tests/Support/fixtures/images.
    static let images = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/fixtures/images").standardizedFileURL

    static func file(_ name: String) -> [String: Any] {
        ["__type": "File", "name": name, "url": "http://files.parsetfss.com/0c5e2d6c-0000/\(name)"]
    }

    static func user(_ id: String, _ username: String, medium: String? = nil, small: String? = nil) -> [String: Any] {
        var user = ParseExport.user(id, username)
        if let medium { user["profilePictureMedium"] = file(medium) }
        if let small { user["profilePictureSmall"] = file(small) }
        return user
    }

    private static func describe(_ run: (status: Int32, stdout: String, stderr: String)) -> String {
        "exit \(run.status)\n--- stdout ---\n\(run.stdout.suffix(3000))\n--- stderr ---\n\(run.stderr.suffix(3000))"
    }

    func testImportedPicturesAreServedAndBadFilesAreNamed() throws {
        var export = ParseExport()
        export.users = [
            Self.user("PicAlice01", "pic_alice", medium: "tfss-a1-profile.jpg", small: "tfss-a1-small.jpg"),
            Self.user("PicBruno01", "pic_bruno", small: "tfss-b1-small.heic"),
            Self.user("PicMissng1", "pic_missing", medium: "tfss-c1-profile.jpg"),
            Self.user("PicTextie1", "pic_text", medium: "tfss-d1-profile.jpg"),
            Self.user("PicEscape1", "pic_escape", medium: "../outside.jpg"),
        ]
        let folder = try export.write()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.images.appendingPathComponent("landscape.jpg"), to: files.appendingPathComponent("tfss-a1-profile.jpg"))
        try FileManager.default.copyItem(at: Self.images.appendingPathComponent("iphone.heic"), to: files.appendingPathComponent("tfss-b1-small.heic"))
        try Data("not a picture\n".utf8).write(to: files.appendingPathComponent("tfss-d1-profile.jpg"))
        // What `../outside.jpg` would reach from FILES: never read.
        try FileManager.default.copyItem(at: Self.images.appendingPathComponent("landscape.jpg"), to: folder.appendingPathComponent("outside.jpg"))

        // --files must name a directory: a usage error, before anything is imported.
        let notADirectory = server.runCLI(["import-parse", folder.path, "--files", files.appendingPathComponent("tfss-a1-profile.jpg").path])
        XCTAssertEqual(notADirectory.status, 2, Self.describe(notADirectory))
        XCTAssertTrue(notADirectory.stderr.contains("is not a directory"), Self.describe(notADirectory))

        let first = server.runCLI(["import-parse", folder.path, "--files", files.path], timeout: 120)
        XCTAssertEqual(first.status, 0, "picture problems never change the exit status: \(Self.describe(first))")
        XCTAssertTrue(first.stdout.contains("pictures: 2 attached, 0 already present, 3 not attached"), Self.describe(first))
        XCTAssertTrue(first.stderr.contains("picture _User PicMissng1: profilePictureMedium tfss-c1-profile.jpg: missing file"), Self.describe(first))
        XCTAssertTrue(first.stderr.contains("picture _User PicTextie1: profilePictureMedium tfss-d1-profile.jpg: not an image"), Self.describe(first))
        XCTAssertTrue(first.stderr.contains("picture _User PicEscape1: profilePictureMedium ../outside.jpg: refused name"), Self.describe(first))
        for id in ["PicAlice01", "PicBruno01"] {
            XCTAssertFalse(first.stderr.contains("picture _User \(id)"), "\(id)'s picture was attached: \(Self.describe(first))")
        }
        let keys = try server.withDatabase { try $0.rows("SELECT id, picture FROM users WHERE picture IS NOT NULL ORDER BY id") }
        XCTAssertEqual(keys.map { $0[0] }, ["PicAlice01", "PicBruno01"], "the users whose picture was attached")

        // Twice: nothing added, no key changed, the same files named again.
        let second = server.runCLI(["import-parse", folder.path, "--files", files.path], timeout: 120)
        XCTAssertEqual(second.status, 0, Self.describe(second))
        XCTAssertTrue(second.stdout.contains("pictures: 0 attached, 2 already present, 3 not attached"), Self.describe(second))
        XCTAssertTrue(second.stderr.contains("picture _User PicMissng1"), Self.describe(second))
        try server.withDatabase { db in
            XCTAssertEqual(try db.rows("SELECT id, picture FROM users WHERE picture IS NOT NULL ORDER BY id"), keys)
            XCTAssertEqual(try db.int("SELECT COUNT(*) FROM profile_pictures"), 4)
        }

        try server.start()
        let client = HTTPClient(port: server.port)
        defer { client.close() }
        for username in ["pic_alice", "pic_bruno"] {
            let me = try imported(username, client)
            let large = try XCTUnwrap(me["avatarUrl"] as? String, "\(username): \(me)")
            let small = try XCTUnwrap(me["avatarThumbnailUrl"] as? String, "\(username): \(me)")
            XCTAssertTrue(large.hasSuffix("-400.jpg") && small.hasSuffix("-100.jpg"), "\(large) \(small)")
            for url in [large, small] {
                // Without --public-url the links are paths on this server.
                let path = URL(string: url)?.path ?? url
                let picture = try client.request("GET", path)
                XCTAssertEqual(picture.status, 200, "GET \(path): \(picture)")
                XCTAssertEqual(picture.headers["content-type"], "image/jpeg", "GET \(path)")
                XCTAssertEqual(Array(picture.body.prefix(3)), [0xFF, 0xD8, 0xFF], "GET \(path): a JPEG")
            }
        }
        let missing = try imported("pic_missing", client)
        XCTAssertTrue(missing["avatarUrl"] is NSNull && missing["avatarThumbnailUrl"] is NSNull, "\(missing)")
    }

    /// The user object an imported user sees at GET /v1/users/me, logged in with the export's password.
    private func imported(_ username: String, _ client: HTTPClient) throws -> [String: Any] {
        let login = try client.request("POST", "/v1/sessions", json: ["login": username, "password": ParseExport.password])
        guard login.status == 201, let token = login.object?["sessionToken"] as? String else {
            throw UnexpectedResponse(request: "POST /v1/sessions as \(username)", result: login)
        }
        let me = try client.request("GET", "/v1/users/me", token: token)
        guard me.status == 200, let user = me.object else {
            throw UnexpectedResponse(request: "GET /v1/users/me as \(username)", result: me)
        }
        return user
    }
}
