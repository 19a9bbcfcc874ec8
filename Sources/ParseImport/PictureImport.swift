import Community
import Foundation
import Imaging
import JSON
import Storage

/// One user's picture files as `_User.json` names them: Parse File objects
/// (`{"__type": "File", "name": "tfss-...-profile.jpg", "url": ...}`), the medium one first.
struct PictureCandidate: Sendable {
    struct Source: Sendable {
        /// `profilePictureMedium` or `profilePictureSmall`.
        let field: String
        /// The File's `name`, or why the field is not a File with one.
        let name: Result<String, PictureProblem>
    }

    let objectId: String
    /// The fields present, in the order they are tried.
    let sources: [Source]

    /// The medium picture is the source; the small one is tried only when the medium one is
    /// absent or cannot be used.
    static let fields = ["profilePictureMedium", "profilePictureSmall"]

    /// A user with at least one picture field, else a skip (which the picture pass ignores: a
    /// user the import skipped was reported in the `_User` phase).
    static func map(_ fields: ParseFields) -> Mapped<PictureCandidate> {
        guard case .success(let id) = fields.checkedObjectId else { return .skip("no objectId") }
        var sources: [Source] = []
        for field in Self.fields {
            switch fields.members[field] {
            case nil, .null?:
                continue
            case .object(let file)? where file["__type"]?.stringValue ?? "File" == "File":
                if let name = file["name"]?.stringValue {
                    sources.append(Source(field: field, name: .success(name)))
                } else {
                    sources.append(Source(field: field, name: .failure(.notAParseFile)))
                }
            default:
                sources.append(Source(field: field, name: .failure(.notAParseFile)))
            }
        }
        guard !sources.isEmpty else { return .skip("no picture") }
        return .row(PictureCandidate(objectId: id, sources: sources), notes: [])
    }
}

/// One Parse file that could not be used, and where it was named.
struct PictureFileProblem: Sendable {
    let field: String
    /// The File's name; nil when the field has none.
    let name: String?
    let problem: PictureProblem
}

/// What became of one user's pictures.
enum PictureOutcome: Sendable {
    /// The renditions of the file in `field` are now the user's picture; `problems` are the
    /// files tried before it.
    case attached(objectId: String, field: String, problems: [PictureFileProblem])
    /// The user has a picture already (an earlier run's, or their own upload): left as it is.
    case alreadyPresent(objectId: String)
    /// No file of the user's could be used.
    case notAttached(objectId: String, problems: [PictureFileProblem])
}

/// The picture pass of `import-parse --files FILES` (API.md "Pictures"): after the load, a
/// second read of `_User.json` attaches each imported user's `profilePictureMedium` (else
/// `profilePictureSmall`) file from FILES, processed like an upload (`Imaging.renditions`) and
/// stored as an upload is (`ProfilePictures.store`).
///
/// Users come in batches of `usersPerTransaction`: one read transaction finds which of them are
/// in the database without a picture (the others are left alone: a user the import skipped, or
/// one who has a picture, from an earlier run or uploaded since); their files are then read
/// and decoded with no transaction open (the costly part, tens of milliseconds each); one write
/// transaction stores what decoded, each user checked again inside it. Memory holds one batch's
/// renditions (tens of kilobytes each) and one source file at a time (at most `maxBytes`).
struct PicturePass {
    let database: any Database
    let files: PictureFiles
    let pictures: ProfilePictures
    let maxBytes: Int
    let usersPerTransaction: Int

    /// A user's renditions made outside any transaction, waiting for the write.
    private struct Decoded {
        let objectId: String
        let picture: (field: String, renditions: Renditions)?
        let problems: [PictureFileProblem]
    }

    /// Reads the users of `stream` and hands each outcome to `record`, in file order, once the
    /// transaction that stored it committed.
    func run(_ stream: PreparedStream<PictureCandidate>, record: (PictureOutcome) -> Void) throws {
        var batch: [PictureCandidate] = []
        reading: while let item = stream.next() {
            switch item {
            case .stopped:
                // Reported by the `_User` phase, which read the same file first.
                break reading
            case .element(.skip, _):
                continue
            case .element(.row(let candidate, _, _), _):
                batch.append(candidate)
                if batch.count == usersPerTransaction {
                    try attach(batch, record: record)
                    batch.removeAll(keepingCapacity: true)
                }
            }
        }
        try attach(batch, record: record)
    }

    private func attach(_ batch: [PictureCandidate], record: (PictureOutcome) -> Void) throws {
        guard !batch.isEmpty else { return }
        // Who is there without a picture. A duplicate objectId of the file counts once (its
        // first object), as in the `_User` phase.
        let found = try database.read { connection -> [(PictureCandidate, hasPicture: Bool)] in
            var seen: Set<String> = []
            return try batch.compactMap { candidate in
                guard seen.insert(candidate.objectId).inserted,
                      let picture = try Self.picture(of: candidate.objectId, on: connection) else { return nil }
                return (candidate, picture != nil)
            }
        }
        var decoded: [Decoded] = []
        for (candidate, hasPicture) in found {
            if hasPicture {
                record(.alreadyPresent(objectId: candidate.objectId))
            } else {
                decoded.append(decode(candidate))
            }
        }
        guard decoded.contains(where: { $0.picture != nil }) else {
            for item in decoded { record(.notAttached(objectId: item.objectId, problems: item.problems)) }
            return
        }
        // The closure may run twice (PostgreSQL retries a transaction): it only touches the
        // database, and the outcomes are recorded after the commit.
        let outcomes = try database.write { connection -> [PictureOutcome?] in
            try decoded.map { item in
                guard let (field, renditions) = item.picture else {
                    return .notAttached(objectId: item.objectId, problems: item.problems)
                }
                // Deleted since the read: nothing to attach it to. A picture since: theirs wins.
                guard let picture = try Self.picture(of: item.objectId, on: connection) else { return nil }
                if picture != nil { return .alreadyPresent(objectId: item.objectId) }
                _ = try pictures.store(renditions, for: item.objectId, on: connection)
                return .attached(objectId: item.objectId, field: field, problems: item.problems)
            }
        }
        for outcome in outcomes { if let outcome { record(outcome) } }
    }

    /// `users.picture` of the user: nil when there is no such user, `.some(nil)` when they have none.
    private static func picture(of userID: String, on connection: any DatabaseConnection) throws -> String?? {
        guard let row = try connection.fetchOne("SELECT picture FROM users WHERE id = \(userID)") else { return nil }
        return .some(try row.decode(at: 0, as: String?.self))
    }

    /// The renditions of the user's first file that reads and decodes, and what was wrong with
    /// those tried before it.
    private func decode(_ candidate: PictureCandidate) -> Decoded {
        var problems: [PictureFileProblem] = []
        var tried: Set<String> = []
        for source in candidate.sources {
            let name: String
            switch source.name {
            case .failure(let problem):
                problems.append(PictureFileProblem(field: source.field, name: nil, problem: problem))
                continue
            case .success(let named):
                name = named
            }
            // Both fields naming one file: it was tried already.
            guard tried.insert(name).inserted else { continue }
            switch files.contents(of: name, maxBytes: maxBytes) {
            case .failure(let problem):
                problems.append(PictureFileProblem(field: source.field, name: name, problem: problem))
            case .success(let bytes):
                do throws(ImagingError) {
                    let renditions = try Imaging.renditions(of: bytes)
                    return Decoded(objectId: candidate.objectId, picture: (source.field, renditions), problems: problems)
                } catch {
                    problems.append(PictureFileProblem(field: source.field, name: name, problem: .notAnImage(Self.describe(error))))
                }
            }
        }
        return Decoded(objectId: candidate.objectId, picture: nil, problems: problems)
    }

    static func describe(_ error: ImagingError) -> String {
        switch error {
        case .unsupportedFormat:
            return "not a JPEG, PNG, WebP or HEIC picture"
        case .tooManyPixels(let width, let height):
            return "its header says \(width) x \(height) pixels, over \(Imaging.maxPixels / 1_000_000) megapixels"
        case .typeMismatch(_, let detected):
            return "its bytes are \(detected.rawValue), not the type it was given"
        case .tooManyBytes(let bytes):
            return "it would take \(bytes / 1_000_000) MB decoded, over \(Imaging.maxDecodedBytes / 1_000_000) MB"
        case .codedSizeMismatch(let width, let height, let codedWidth, let codedHeight):
            return "its header says \(width) x \(height) pixels, its image data \(codedWidth) x \(codedHeight)"
        case .undecodable:
            return "its pixels do not decode (truncated or corrupt)"
        }
    }
}
