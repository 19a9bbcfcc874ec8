import CVips
import Foundation
import XCTest

/// Profile pictures (API.md "Profile pictures", issue 29) through the real binary: an upload
/// answers User(me) with two URLs, the renditions are served without a session with immutable
/// caching and 304s, bad input is refused with `invalid_image` or 413, and moderation, bans and
/// account deletion take pictures away. Runs on SQLite and, under `scripts/test`, PostgreSQL.
final class ProfilePictureTests: ServerTestCase {
    func testAnUploadIsServedAsTwoSquareJPEGsCachedForEver() throws {
        let owner = try client.signup()
        let me = try upload("landscape.jpg", as: owner)
        let large = try XCTUnwrap(me["avatarUrl"] as? String)
        let small = try XCTUnwrap(me["avatarThumbnailUrl"] as? String)
        XCTAssertTrue(large.hasPrefix("/media/avatars/") && large.hasSuffix("-400.jpg"), "without --public-url, a path: \(large)")
        XCTAssertTrue(small.hasPrefix("/media/avatars/") && small.hasSuffix("-100.jpg"), small)
        XCTAssertEqual(me["email"] as? String, owner.email, "the answer is User(me)")

        for (url, side) in [(large, 400), (small, 100)] {
            // No session: image loaders cannot add one.
            let served = try client.request("GET", url)
            XCTAssertEqual(served.status, 200)
            XCTAssertEqual(served.headers["content-type"], "image/jpeg")
            XCTAssertEqual(served.headers["cache-control"], "public, max-age=31536000, immutable")
            let etag = try XCTUnwrap(served.headers["etag"])
            XCTAssertTrue(etag.hasPrefix("\"") && etag.hasSuffix("\""), "a strong ETag: \(etag)")
            let picture = try Picture(served.body)
            XCTAssertEqual([picture.width, picture.height], [side, side])
            // A cached copy is revalidated without the bytes.
            let again = try client.request("GET", url, headers: ["If-None-Match": etag])
            XCTAssertEqual(again.status, 304)
            XCTAssertEqual(again.body.count, 0)
            XCTAssertEqual(again.headers["etag"], etag)
            XCTAssertEqual(try client.request("GET", url, headers: ["If-None-Match": "\"something-else\""]).status, 200)
        }

        // Everyone sees the URLs: the profile, and the owner inside a video.
        let viewer = try client.signup()
        let profile = try getObject("/v1/users/\(owner.id)", viewer.token)
        XCTAssertEqual(profile["avatarUrl"] as? String, large)
        XCTAssertEqual(profile["avatarThumbnailUrl"] as? String, small)
        let (_, video) = try rallyAndVideo(owner: owner)
        let seen = try getObject("/v1/videos/\(video["id"] as? String ?? "")", viewer.token)
        XCTAssertEqual(child(seen, "owner")?["avatarThumbnailUrl"] as? String, small)

        // A new picture has new names; the old ones are gone.
        let replaced = try upload("photo.webp", as: owner, type: "image/webp")
        XCTAssertNotEqual(replaced["avatarUrl"] as? String, large)
        assertError(try client.request("GET", large), 404, "not_found", "a replaced picture's name")
        XCTAssertEqual(try client.request("GET", try XCTUnwrap(replaced["avatarUrl"] as? String)).status, 200)
        XCTAssertEqual(try pictureRows(of: owner), 2, "one picture: two renditions, the old ones deleted")

        // Removed by its owner: null URLs, names 404.
        let removed = assertSuccess(try client.request("DELETE", "/v1/users/me/avatar", token: owner.token), 200)
        XCTAssertTrue(removed["avatarUrl"] is NSNull && removed["avatarThumbnailUrl"] is NSNull, "\(removed)")
        assertError(try client.request("GET", try XCTUnwrap(replaced["avatarThumbnailUrl"] as? String)), 404, "not_found")
        XCTAssertEqual(try pictureRows(of: owner), 0)
        XCTAssertTrue(try getObject("/v1/users/\(owner.id)", viewer.token)["avatarUrl"] is NSNull)
    }

    func testEveryAcceptedFormatIsTurnedUprightAndCarriesNoMetadata() throws {
        let owner = try client.signup()
        let types = ["landscape.jpg": "image/jpeg", "alpha.png": "image/png", "photo.webp": "image/webp", "iphone.heic": "image/heic",
                     "upright-gps.jpg": "image/jpeg", "cmyk.jpg": "image/jpeg", "sixteen-bit.png": "image/png"]
        for (name, type) in types.sorted(by: { $0.key < $1.key }) {
            let me = try upload(name, as: owner, type: type)
            let served = try client.request("GET", try XCTUnwrap(me["avatarUrl"] as? String))
            let bytes = Array(served.body)
            // Only the image: no APPn segment (JFIF, EXIF, XMP, ICC), no comment.
            XCTAssertEqual(Set(jpegMarkers(bytes)).subtracting([0xDB, 0xC0, 0xC2, 0xC4, 0xDA, 0xDD]), [], name)
            XCTAssertNil(bytes.firstRange(of: Array("Exif".utf8)), name)
            XCTAssertNil(bytes.firstRange(of: Array("PacenoteCam".utf8)), "\(name): the camera model of its EXIF")
            let picture = try Picture(served.body)
            XCTAssertEqual(picture.bands, 3, "\(name): 8-bit sRGB (CMYK and 16-bit converted)")
            // Each fixture is red over blue once upright (upright-gps.jpg is stored sideways with
            // EXIF Orientation 6).
            XCTAssertGreaterThan(try picture.red(top: true), 150, name)
            XCTAssertLessThan(try picture.red(top: false), 90, name)
        }
    }

    func testBadInputIsRefusedWithTheEnvelope() throws {
        let owner = try client.signup()
        let refusals: [(String, Data, String)] = [
            ("a text body typed as an image", Data("hello, I am not a picture".utf8), "image/jpeg"),
            ("a truncated JPEG", try imageFixture("truncated.jpg"), "image/jpeg"),
            ("a GIF", try imageFixture("animation.gif"), "image/gif"),
            ("a GIF typed as PNG", try imageFixture("animation.gif"), "image/png"),
            ("an SVG", try imageFixture("script.svg"), "image/svg+xml"),
            ("an SVG typed as JPEG", try imageFixture("script.svg"), "image/jpeg"),
            ("a JPEG typed as JSON", try imageFixture("landscape.jpg"), "application/json"),
            ("an empty body", Data(), "image/jpeg"),
        ]
        for (what, body, type) in refusals {
            assertError(try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": type], body: body, token: owner.token),
                        400, "invalid_image", what)
        }
        XCTAssertTrue(try client.me(owner.token).object?["avatarUrl"] is NSNull, "nothing was stored")
        assertError(try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"], body: try imageFixture("landscape.jpg")),
                    401, "unauthorized")

        // A decompression bomb: a 2 KB PNG whose header claims 100,000 x 100,000 pixels, refused
        // from the header. Decoding it would take 30 GB; the server's peak memory does not move.
        let before = try server.peakResidentKiB()
        let bomb = try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/png"], body: try imageFixture("bomb.png"), token: owner.token)
        assertError(bomb, 400, "invalid_image")
        XCTAssertTrue(bomb.errorMessage?.contains("100000 x 100000") == true, "\(bomb)")
        XCTAssertLessThan(try server.peakResidentKiB() - before, 32 * 1024, "peak memory in KiB grew by more than 32 MiB")

        // 11 MiB: refused from its Content-Length, before a byte of it is sent.
        let head = "PUT /v1/users/me/avatar HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(owner.token)\r\nContent-Type: image/jpeg\r\n"
            + "Content-Length: \(11 * 1024 * 1024)\r\n\r\n"
        let tooLarge = try XCTUnwrap(client.sendRaw(Array(head.utf8)), "an answer without the body")
        assertError(tooLarge, 413, "payload_too_large")
        // 10 MiB is what this route takes; every other route keeps 64 KiB.
        let big = Data(count: 100 * 1024)
        assertError(try client.request("PATCH", "/v1/users/me", headers: ["Content-Type": "application/json"], body: big, token: owner.token),
                    413, "payload_too_large")
        assertError(try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"], body: big, token: owner.token),
                    400, "invalid_image", "100 KiB of zeros is read, and is no picture")

        // Names that are not a picture's: 404, looked up or not.
        for name in ["nothing.jpg", String(repeating: "A", count: 22) + "-400.jpg", "..%2Fpacenote.sqlite", String(repeating: "x", count: 300)] {
            assertError(try client.request("GET", "/media/avatars/\(name)"), 404, "not_found", name)
        }
    }

    func testModeratorsRemovePicturesAndBannedOrDeletedUsersPicturesAreNotServed() throws {
        let moderator = try moderator()
        let owner = try client.signup(), other = try client.signup()
        let url = try XCTUnwrap(try upload("landscape.jpg", as: owner)["avatarUrl"] as? String)
        assertError(try client.request("DELETE", "/v1/moderation/users/\(owner.id)/avatar", token: other.token), 403, "forbidden")
        XCTAssertEqual(try client.request("GET", url).status, 200, "a refused removal removed nothing")

        let removed = assertSuccess(try client.request("DELETE", "/v1/moderation/users/\(owner.id)/avatar", json: ["reason": "not a face"],
                                                       token: moderator.token), 200)
        XCTAssertEqual(removed["id"] as? String, owner.id)
        XCTAssertTrue(removed["avatarUrl"] is NSNull)
        assertError(try client.request("GET", url), 404, "not_found")
        let entry = try firstPage("/v1/moderation/log", moderator.token).first
        XCTAssertEqual(entry?["action"] as? String, "remove_picture")
        XCTAssertEqual(entry?["reason"] as? String, "not a face")
        XCTAssertEqual(child(entry, "target")?["id"] as? String ?? entry?["targetId"] as? String, owner.id, "\(entry ?? [:])")
        assertError(try client.request("DELETE", "/v1/moderation/users/nobody00000/avatar", token: moderator.token), 404, "not_found")

        // A ban: the picture is not served while it lasts, and is again after the unban.
        let second = try XCTUnwrap(try upload("photo.webp", as: owner, type: "image/webp")["avatarThumbnailUrl"] as? String)
        XCTAssertEqual(try client.request("GET", second).status, 200)
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/ban", token: moderator.token), 200)
        assertError(try client.request("GET", second), 404, "not_found", "a banned user's picture")
        assertSuccess(try client.request("POST", "/v1/moderation/users/\(owner.id)/unban", token: moderator.token), 200)
        XCTAssertEqual(try client.request("GET", second).status, 200, "served again after the unban")

        // Deleting the account deletes its pictures.
        let leaving = try client.signup()
        let gone = try XCTUnwrap(try upload("alpha.png", as: leaving, type: "image/png")["avatarUrl"] as? String)
        XCTAssertEqual(try client.request("GET", gone).status, 200)
        assertSuccess(try client.request("DELETE", "/v1/users/me", json: ["password": leaving.password], token: leaving.token), 204)
        assertError(try client.request("GET", gone), 404, "not_found")
        XCTAssertEqual(try pictureRows(of: leaving), 0, "the rows went with the account")
    }

    // MARK: Helpers

    @discardableResult
    func upload(_ name: String, as account: Account, type: String = "image/jpeg", file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": type], body: try imageFixture(name), token: account.token)
        return assertSuccess(result, 200, name, file: file, line: line)
    }

    func pictureRows(of account: Account) throws -> Int {
        try server.withDatabase { try $0.int("SELECT COUNT(*) FROM profile_pictures WHERE user_id = \(account.id)") }
    }
}

/// Absolute URLs with `--public-url`.
final class ProfilePicturePublicURLTests: ServerTestCase {
    override class var serverArguments: [String] { ["--public-url", "https://rally.example.com/"] }

    func testURLsAreAbsoluteOnThePublicHost() throws {
        let owner = try client.signup()
        let result = try client.request("PUT", "/v1/users/me/avatar", headers: ["Content-Type": "image/jpeg"], body: try imageFixture("landscape.jpg"),
                                        token: owner.token)
        let me = assertSuccess(result, 200)
        let url = try XCTUnwrap(me["avatarUrl"] as? String)
        XCTAssertTrue(url.hasPrefix("https://rally.example.com/media/avatars/"), url)
        let path = try XCTUnwrap(URLComponents(string: url)?.path)
        XCTAssertEqual(try client.request("GET", path).status, 200, "served at the path the public URL names")
    }
}

/// A fixture image of Tests/Support/fixtures/images.
func imageFixture(_ name: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Support/fixtures/images/\(name)").standardized)
}

/// The markers of a JPEG's segments up to its first scan.
func jpegMarkers(_ bytes: [UInt8]) -> [UInt8] {
    var markers: [UInt8] = []
    var index = 2
    while index + 4 <= bytes.count, bytes[index] == 0xFF {
        markers.append(bytes[index + 1])
        if bytes[index + 1] == 0xDA { break }
        index += 2 + Int(bytes[index + 2]) << 8 + Int(bytes[index + 3])
    }
    return markers
}

/// A served rendition decoded with libvips, to check its size and which way up it is.
final class Picture {
    private let image: UnsafeMutablePointer<VipsImage>

    init(_ data: Data) throws {
        guard vips_init("tests") == 0, let image = data.withUnsafeBytes({ pn_vips_decode($0.baseAddress, $0.count) }) else {
            throw UnexpectedPicture()
        }
        self.image = image
    }

    deinit { pn_vips_unref(image) }

    var width: Int { Int(vips_image_get_width(image)) }
    var height: Int { Int(vips_image_get_height(image)) }
    var bands: Int { Int(vips_image_get_bands(image)) }

    /// The red band's average over the top or bottom fifth.
    func red(top: Bool) throws -> Double {
        let rows = Int32(height / 5)
        var value = 0.0
        guard pn_vips_area_average(image, 0, 0, top ? 0 : Int32(height) - rows, Int32(width), rows, &value) == 0 else { throw UnexpectedPicture() }
        return value
    }
}

struct UnexpectedPicture: Error {}
