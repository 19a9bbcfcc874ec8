/// The Parse classes an export holds, in import order.
public enum ParseClass: String, CaseIterable, Sendable, Comparable {
    case user = "_User"
    case rally = "Rallye"
    case video = "Video"
    case activity = "Activity"
    case installation = "_Installation"

    /// `<Class>.json`.
    public var fileName: String { rawValue + ".json" }

    /// Only `_Installation.json` may be absent from an export.
    public var isOptional: Bool { self == .installation }

    public static func < (lhs: ParseClass, rhs: ParseClass) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// What an import did: counts per class, every skip and note with its objectId (the first
/// `keptEntries` of them; past that only counted), the files that could not be read, the
/// sign-in identities kept from `authData`, and with `--files` what became of the users' pictures.
public struct ImportReport: Sendable {
    public struct Counts: Sendable, Equatable {
        /// Elements read from the file (objects, and elements skipped as malformed).
        public var read = 0
        public var imported = 0
        public var alreadyPresent = 0
        public var skipped = 0
        /// Objects imported with a change worth telling (replaced email, unusable hash, ...).
        public var notes = 0
    }

    /// The picture pass (`--files`), per user with a picture field in `_User.json` who is in
    /// the database.
    public struct PictureCounts: Sendable, Equatable {
        /// Users given a picture by this run.
        public var attached = 0
        /// Users who had a picture already (an earlier run's, or one they uploaded): left as is.
        public var alreadyPresent = 0
        /// Users none of whose files could be used.
        public var notAttached = 0
        /// Files that could not be used, by category (`PictureProblem.category`); a medium
        /// file passed over for the small one counts here too.
        public var problems: [String: Int] = [:]
    }

    /// The Facebook and Twitter ids of `_User.authData`, each linked to its user's account
    /// (`identities` rows), for the users imported or already present.
    public struct IdentityCounts: Sendable, Equatable {
        /// Identities linked by this run.
        public var imported = 0
        /// Identities linked to their account already (an earlier run): left as they are.
        public var alreadyPresent = 0
        /// Identities linked to another account, or whose account has another identity of
        /// that provider: left as they are, each an `identity` entry.
        public var notLinked = 0
    }

    /// One skipped object, a note about an imported one, a picture file that could not be
    /// used (`picture`: the user was imported, only that file was not), or an identity that was
    /// not linked (`identity`: the user is in, only that link was not made).
    public struct Entry: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable { case skip, note, picture, identity }
        public let kind: Kind
        public let parseClass: ParseClass
        /// The Parse objectId, "?" when the object has none we could read.
        public let objectId: String
        public let reason: String

        public var description: String { "\(kind.rawValue) \(parseClass.rawValue) \(objectId): \(reason)" }
    }

    /// How many entries are kept in `entries` (all are counted in `counts` and `skipReasons`).
    public static let keptEntries = 100_000

    public internal(set) var counts: [ParseClass: Counts] = [:]
    public internal(set) var entries: [Entry] = []
    /// Skips per class and reason.
    public internal(set) var skipReasons: [ParseClass: [String: Int]] = [:]
    /// Files that stopped early or could not be opened, with the error; the rest of the import went on.
    public internal(set) var fileErrors: [ParseClass: String] = [:]
    /// Files the export does not have.
    public internal(set) var missingFiles: [ParseClass] = []
    /// Each phase and its duration in seconds, in order.
    public internal(set) var phases: [(name: String, seconds: Double)] = []
    public internal(set) var identities = IdentityCounts()
    /// Nil when the import was not given `--files` (pictures are not touched then).
    public internal(set) var pictures: PictureCounts?
    public internal(set) var homeTimelineRows = 0
    public internal(set) var followingTimelineRows = 0

    public init() {}

    /// The counts of one class (zero when it was not imported).
    public subscript(_ parseClass: ParseClass) -> Counts { counts[parseClass] ?? Counts() }

    /// The skips of one class.
    public func skips(of parseClass: ParseClass) -> [Entry] {
        entries.filter { $0.kind == .skip && $0.parseClass == parseClass }
    }

    mutating func add(_ entry: Entry) {
        switch entry.kind {
        case .skip:
            counts[entry.parseClass, default: Counts()].skipped += 1
            skipReasons[entry.parseClass, default: [:]][entry.reason, default: 0] += 1
        case .note:
            counts[entry.parseClass, default: Counts()].notes += 1
        case .picture:
            break  // Counted in `pictures`, by the pass, with its category.
        case .identity:
            break  // Counted in `identities`, with the links made.
        }
        if entries.count < Self.keptEntries { entries.append(entry) }
    }

    /// The summary printed on stdout at the end.
    public var summary: String {
        var lines: [String] = []
        let total = phases.reduce(0) { $0 + $1.seconds }
        lines.append("import-parse finished in \(Self.seconds(total)) s")
        for parseClass in ParseClass.allCases {
            if missingFiles.contains(parseClass) {
                lines.append("  \(parseClass.rawValue): no \(parseClass.fileName)\(parseClass.isOptional ? "" : " (expected)")")
                continue
            }
            let c = self[parseClass]
            var line = "  \(parseClass.rawValue): \(c.read) read, \(c.imported) imported, \(c.alreadyPresent) already present, \(c.skipped) skipped"
            if c.notes > 0 { line += ", \(c.notes) imported with notes" }
            lines.append(line)
            if let reasons = skipReasons[parseClass], !reasons.isEmpty {
                let text = reasons.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { "\($0.key): \($0.value)" }.joined(separator: "; ")
                lines.append("      skipped: \(text)")
            }
            if let error = fileErrors[parseClass] {
                lines.append("      FILE STOPPED EARLY: \(error)")
            }
        }
        lines.append("  identities: \(identities.imported) imported, \(identities.alreadyPresent) already present, \(identities.notLinked) not linked")
        if let pictures {
            lines.append("  pictures: \(pictures.attached) attached, \(pictures.alreadyPresent) already present, \(pictures.notAttached) not attached")
            if !pictures.problems.isEmpty {
                let text = pictures.problems.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { "\($0.key): \($0.value)" }.joined(separator: "; ")
                lines.append("      files not used: \(text)")
            }
        }
        lines.append("  timelines: \(homeTimelineRows) home rows, \(followingTimelineRows) following rows")
        lines.append("  phases: " + phases.map { "\($0.name) \(Self.seconds($0.seconds)) s" }.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    static func seconds(_ value: Double) -> String {
        String(Double((value * 10).rounded()) / 10)
    }
}
