import Community
import Foundation
import Imaging
import JSON
import Storage
import Telemetry
import TestSupport
import Testing
@testable import ParseImport

/// `import-parse --files FILES`: the users' Parse File pictures attached from FILES like uploads,
/// every file that cannot be used reported with its user's objectId, and a second run adding nothing.
@Suite struct PictureImportTests {
    /// Tests/Support/fixtures/images (made by make-images.py there).
    static let images = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/fixtures/images").standardizedFileURL

    static func file(_ name: String) -> [String: Any] {
        ["__type": "File", "name": name, "url": "http://files.parsetfss.com/0c5e2d6c-aaaa/\(name)"]
    }

    static func user(_ id: String, _ username: String, medium: Any? = nil, small: Any? = nil) -> [String: Any] {
        var user: [String: Any] = [
            "objectId": id, "username": username, "email": "\(username)@example.com",
            "bcryptPassword": "$2b$10$" + String(repeating: "a", count: 53), "createdAt": "2015-01-01T00:00:00.000Z",
        ]
        if let medium { user["profilePictureMedium"] = medium }
        if let small { user["profilePictureSmall"] = small }
        return user
    }

    /// The users of the export and what each should end with.
    static let attached = ["PicJpeg001", "PicHeic001", "PicSmall01", "PicFallbk1"]
    static let notAttached = ["PicMissing", "PicText001", "PicEscape1", "PicBomb001", "PicLink001", "PicLarge01", "PicNotFil1"]

    /// An export (`root/export`) and its FILES (`root/files`) in a folder of their own; the
    /// caller removes `root`. Beside FILES, `root/escape.jpg` is a real picture that a `../` name
    /// or a symbolic link would reach.
    struct Layout {
        let root: URL
        var export: URL { root.appendingPathComponent("export") }
        var files: URL { root.appendingPathComponent("files") }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("parse-pictures-\(UUID().uuidString)")
            let manager = FileManager.default
            try manager.createDirectory(at: root.appendingPathComponent("export"), withIntermediateDirectories: true)
            try manager.createDirectory(at: root.appendingPathComponent("files"), withIntermediateDirectories: true)
            let users: [[String: Any]] = [
                PictureImportTests.user("PicJpeg001", "jpeg_user", medium: file("tfss-0001-landscape.jpg"), small: file("tfss-0001-small.jpg")),
                PictureImportTests.user("PicHeic001", "heic_user", medium: file("tfss-0002-iphone.heic")),
                PictureImportTests.user("PicMissing", "missing_user", medium: file("tfss-0003-gone.jpg")),
                PictureImportTests.user("PicText001", "text_user", medium: file("tfss-0004-notes.jpg")),
                PictureImportTests.user("PicEscape1", "escape_user", medium: file("../escape.jpg")),
                PictureImportTests.user("PicSmall01", "small_user", small: file("tfss-0005-photo.webp")),
                // The medium file is missing: the small one is the picture, the medium one reported.
                PictureImportTests.user("PicFallbk1", "fallback_user", medium: file("tfss-0006-gone.jpg"), small: file("tfss-0006-alpha.png")),
                PictureImportTests.user("PicBomb001", "bomb_user", medium: file("tfss-0007-bomb.png")),
                PictureImportTests.user("PicLink001", "link_user", medium: file("tfss-0008-link.jpg")),
                PictureImportTests.user("PicLarge01", "large_user", medium: file("tfss-0009-large.jpg")),
                PictureImportTests.user("PicNotFil1", "notfile_user", medium: "tfss-0010-landscape.jpg"),
                PictureImportTests.user("NoPicture1", "plain_user"),
                // Skipped by the import (the username breaks Pacenote's rule): its picture is ignored.
                PictureImportTests.user("Skipped001", "not valid!", medium: file("tfss-0001-landscape.jpg")),
            ]
            let files: [(String, [[String: Any]])] = [("_User", users), ("Rallye", []), ("Video", []), ("Activity", [])]
            for (name, objects) in files {
                try JSONSerialization.data(withJSONObject: ["results": objects]).write(to: export.appendingPathComponent("\(name).json"))
            }
            func copy(_ fixture: String, as name: String) throws {
                try manager.copyItem(at: PictureImportTests.images.appendingPathComponent(fixture), to: self.files.appendingPathComponent(name))
            }
            try copy("landscape.jpg", as: "tfss-0001-landscape.jpg")
            try copy("iphone.heic", as: "tfss-0002-iphone.heic")
            try Data("these are my notes, not a picture\n".utf8).write(to: self.files.appendingPathComponent("tfss-0004-notes.jpg"))
            try copy("photo.webp", as: "tfss-0005-photo.webp")
            try copy("alpha.png", as: "tfss-0006-alpha.png")
            try copy("bomb.png", as: "tfss-0007-bomb.png")
            try manager.copyItem(at: PictureImportTests.images.appendingPathComponent("upright-gps.jpg"), to: root.appendingPathComponent("escape.jpg"))
            try manager.createSymbolicLink(atPath: self.files.appendingPathComponent("tfss-0008-link.jpg").path, withDestinationPath: root.appendingPathComponent("escape.jpg").path)
            // 11 MiB, sparse: over the 10 MiB an upload may have.
            let large = self.files.appendingPathComponent("tfss-0009-large.jpg")
            try manager.copyItem(at: PictureImportTests.images.appendingPathComponent("landscape.jpg"), to: large)
            let handle = try FileHandle(forWritingTo: large)
            try handle.truncate(atOffset: 11 * 1024 * 1024)
            try handle.close()
        }
    }

    static func runImport(_ database: any Database, _ layout: Layout, files: Bool = true) throws -> (ImportReport, [String]) {
        var options = ParseImporter.Options()
        if files { options.filesDirectory = layout.files.path }
        // Batches of three users, so that the pass commits several.
        options.picturesPerTransaction = 3
        var lines: [String] = []
        let report = try ParseImporter(database: database, directory: layout.export.path, options: options) { lines.append($0) }.run()
        return (report, lines)
    }

    /// Every user's `users.picture` (nil: none).
    static func pictureKeys(_ database: any Database) throws -> [String: String?] {
        try database.read { connection in
            Dictionary(uniqueKeysWithValues: try connection.fetchAll("SELECT id, picture FROM users").map {
                (try $0.decode(at: 0, as: String.self), try $0.decode(at: 1, as: String?.self))
            })
        }
    }

    /// The rows of `profile_pictures`: name -> (owner, bytes).
    static func renditions(_ database: any Database) throws -> [String: (user: String, bytes: [UInt8])] {
        try database.read { connection in
            Dictionary(uniqueKeysWithValues: try connection.fetchAll("SELECT name, user_id, bytes FROM profile_pictures").map {
                (try $0.decode(at: 0, as: String.self), (try $0.decode(at: 1, as: String.self), try $0.decode(at: 2, as: [UInt8].self)))
            })
        }
    }

    /// The picture lines of a report, by objectId.
    static func pictureEntries(_ report: ImportReport) -> [String: [String]] {
        Dictionary(grouping: report.entries.filter { $0.kind == .picture }, by: \.objectId).mapValues { $0.map(\.reason) }
    }

    @Test(arguments: DialectDatabase.dialects)
    func attachesEachUsablePictureAndReportsEveryOtherFile(dialect: SQLDialect) throws {
        let layout = try Layout()
        defer { try? FileManager.default.removeItem(at: layout.root) }
        let db = try DialectDatabase(dialect)
        let (report, lines) = try Self.runImport(db.database, layout)

        #expect(report[.user].imported == 12 && report[.user].skipped == 1)
        #expect(report.pictures?.attached == Self.attached.count)
        #expect(report.pictures?.alreadyPresent == 0)
        #expect(report.pictures?.notAttached == Self.notAttached.count)
        #expect(report.pictures?.problems == ["missing file": 2, "not an image": 2, "refused name": 1, "not a regular file": 1,
                                              "too large": 1, "not a Parse File": 1])
        #expect(report.fileErrors.isEmpty)

        let keys = try Self.pictureKeys(db.database)
        let stored = try Self.renditions(db.database)
        #expect(stored.count == 2 * Self.attached.count)
        for id in Self.attached {
            guard let key = keys[id] ?? nil else {
                Issue.record("\(id) has no picture")
                continue
            }
            // Two renditions, 400 and 100 px JPEGs, named from the key, as an upload makes them.
            for (name, side) in [(PictureName.large(key), 400), (PictureName.small(key), 100)] {
                guard let rendition = stored[name] else {
                    Issue.record("\(id): no rendition \(name)")
                    continue
                }
                #expect(rendition.user == id)
                let probed = try Imaging.probe(rendition.bytes)
                #expect(probed.format == .jpeg && probed.width == side && probed.height == side, "\(id) \(name)")
            }
        }
        for id in Self.notAttached + ["NoPicture1"] {
            #expect(keys[id] == .some(nil), "\(id) has no picture")
        }
        #expect(keys["Skipped001"] == nil, "the skipped user is not in the database")

        // Every file that could not be used, by objectId, with its name and why.
        let entries = Self.pictureEntries(report)
        #expect(entries["PicMissing"] == ["profilePictureMedium tfss-0003-gone.jpg: missing file: no such file in FILES"])
        #expect(entries["PicText001"]?.first?.hasPrefix("profilePictureMedium tfss-0004-notes.jpg: not an image: ") == true)
        #expect(entries["PicEscape1"] == ["profilePictureMedium ../escape.jpg: refused name (a path, not a file name); not looked up"])
        #expect(entries["PicBomb001"]?.first?.contains("100000 x 100000") == true, "\(entries)")
        #expect(entries["PicLink001"] == ["profilePictureMedium tfss-0008-link.jpg: not a regular file: a symbolic link, not followed"])
        #expect(entries["PicLarge01"]?.first?.hasPrefix("profilePictureMedium tfss-0009-large.jpg: too large: 11534336 bytes") == true, "\(entries)")
        #expect(entries["PicNotFil1"] == ["profilePictureMedium: not a Parse File object with a name"])
        #expect(entries["PicFallbk1"] == ["profilePictureMedium tfss-0006-gone.jpg: missing file: no such file in FILES (profilePictureSmall attached instead)"])
        #expect(Set(entries.keys) == Set(Self.notAttached + ["PicFallbk1"]), "no line for a user whose picture was attached, or who was skipped")
        for id in Self.notAttached {
            #expect(lines.contains { $0.hasPrefix("picture _User \(id): ") }, "a log line names \(id)")
        }
        #expect(report.summary.contains("  pictures: 4 attached, 0 already present, 7 not attached"), "\(report.summary)")
        #expect(report.phases.map(\.name).last == "pictures")

        // The second run adds nothing and changes no key; the same files are reported again.
        let (again, _) = try Self.runImport(db.database, layout)
        #expect(again.pictures?.attached == 0)
        #expect(again.pictures?.alreadyPresent == Self.attached.count)
        #expect(again.pictures?.notAttached == Self.notAttached.count)
        #expect(Self.pictureEntries(again).keys.sorted() == Self.notAttached.sorted(), "a user with a picture is not looked at again")
        #expect(try Self.pictureKeys(db.database) == keys)
        #expect(try Self.renditions(db.database).mapValues { $0.bytes } == stored.mapValues { $0.bytes })
    }

    @Test(arguments: DialectDatabase.dialects)
    func aLaterRunKeepsAnUploadAndAttachesAFileSavedSince(dialect: SQLDialect) throws {
        let layout = try Layout()
        defer { try? FileManager.default.removeItem(at: layout.root) }
        let db = try DialectDatabase(dialect)
        _ = try Self.runImport(db.database, layout)
        let before = try Self.pictureKeys(db.database)

        // The JPEG user uploads a picture of their own; the missing file turns up in FILES.
        let uploaded = try ProfilePictures(database: db.database, clock: SystemClock()).upload(
            Array(try Data(contentsOf: Self.images.appendingPathComponent("cmyk.jpg"))), declared: .jpeg, for: "PicJpeg001")
        try FileManager.default.copyItem(at: Self.images.appendingPathComponent("landscape.jpg"), to: layout.files.appendingPathComponent("tfss-0003-gone.jpg"))

        let (report, _) = try Self.runImport(db.database, layout)
        #expect(report.pictures?.attached == 1)
        #expect(report.pictures?.alreadyPresent == Self.attached.count)
        let after = try Self.pictureKeys(db.database)
        #expect(after["PicJpeg001"] == .some(uploaded.picture) && uploaded.picture != before["PicJpeg001"] ?? nil, "the upload is kept")
        #expect((after["PicMissing"] ?? nil) != nil)
        #expect(try Self.renditions(db.database).count == 2 * (Self.attached.count + 1))
    }

    @Test func withoutFilesPicturesAreNotTouched() throws {
        let layout = try Layout()
        defer { try? FileManager.default.removeItem(at: layout.root) }
        let db = try DialectDatabase(.sqlite)
        let (report, lines) = try Self.runImport(db.database, layout, files: false)
        #expect(report.pictures == nil)
        #expect(!report.summary.contains("pictures:"))
        #expect(!lines.contains { $0.hasPrefix("picture ") })
        #expect(try db.count("SELECT COUNT(*) FROM users WHERE picture IS NOT NULL") == 0)
        #expect(try db.count("SELECT COUNT(*) FROM profile_pictures") == 0)
    }

    @Test func aFilesDirectoryThatCannotBeOpenedStopsTheImportBeforeItStarts() throws {
        let layout = try Layout()
        defer { try? FileManager.default.removeItem(at: layout.root) }
        let db = try DialectDatabase(.sqlite)
        var options = ParseImporter.Options()
        options.filesDirectory = layout.root.appendingPathComponent("no-such-folder").path
        #expect(throws: ImportError.self) {
            try ParseImporter(database: db.database, directory: layout.export.path, options: options) { _ in }.run()
        }
        #expect(try db.count("SELECT COUNT(*) FROM users") == 0)
    }

    @Test func namesThatAreNotPlainFileNamesAreRefused() {
        for name in ["", ".", "..", "../x.jpg", "a/b.jpg", "/etc/passwd", #"..\x.jpg"#, "x\u{0}.jpg", String(repeating: "a", count: 256)] {
            #expect(PictureFiles.refusal(of: name) != nil, "\(name.debugDescription)")
        }
        for name in ["tfss-0c5e-profile.jpg", "...jpg", "..a", "é.png", String(repeating: "a", count: 255)] {
            #expect(PictureFiles.refusal(of: name) == nil, "\(name.debugDescription)")
        }
        #expect(PictureFiles.reportable("tfss-1-a.jpg") == "tfss-1-a.jpg")
        #expect(PictureFiles.reportable("a\nskip _User x: forged") == #""a\nskip _User x: forged""#)
        #expect(PictureFiles.reportable(String(repeating: "b", count: 500)).count < 100)
    }

    @Test func theMediumFieldComesFirstAndOtherFieldsAreNotFiles() {
        func map(_ object: [String: Any]) -> PictureCandidate? {
            let data = try! JSONSerialization.data(withJSONObject: object)
            guard case .object(let members) = try! JSONValue.parse(Array(data)),
                  case .row(let candidate, _) = PictureCandidate.map(ParseFields(members)) else { return nil }
            return candidate
        }
        let both = map(Self.user("u1", "u_one", medium: Self.file("m.jpg"), small: Self.file("s.jpg")))
        #expect(both?.sources.map(\.field) == ["profilePictureMedium", "profilePictureSmall"])
        #expect(both?.sources.map { try? $0.name.get() } == ["m.jpg", "s.jpg"])
        #expect(map(Self.user("u2", "u_two")) == nil, "no picture field: nothing to do")
        let pointer = map(Self.user("u3", "u_three", small: ["__type": "Pointer", "className": "_User", "objectId": "x"]))
        #expect(pointer?.sources.first?.name == .failure(.notAParseFile))
        #expect(map(Self.user("u4", "u_four", medium: NSNull())) == nil, "null is no picture")
    }
}
