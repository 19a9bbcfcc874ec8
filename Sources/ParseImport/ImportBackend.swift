import Auth
import Storage

/// What an import does differently on each database, chosen once from its dialect
/// (`makeImportBackend(for:)`): how mapped rows are written and how many go in one
/// transaction, how the session is tuned for the load and for the index builds, and how the
/// planner learns what was loaded. Everything else (reading, mapping, reporting, counters,
/// timelines) is the same code on both.
///
/// The insert methods write rows in the order given, as if one at a time, and answer what
/// became of each, in that order: a row is checked against the rows before it, so the first
/// of two duplicates is the one imported, whatever the dialect.
protocol ImportBackend {
    /// Rows per write transaction.
    func rowsPerTransaction(_ options: ParseImporter.Options) -> Int
    /// Rows per call of an insert method (at most: a transaction's last call may have fewer).
    var rowsPerWrite: Int { get }

    func insert(_ users: [ImportedUser], on connection: any DatabaseConnection) throws -> [WriteOutcome]
    func insert(_ rallies: [ImportedRally], on connection: any DatabaseConnection) throws -> [WriteOutcome]
    func insert(_ videos: [ImportedVideo], on connection: any DatabaseConnection) throws -> [WriteOutcome]
    func insert(_ activities: [ImportedActivity], on connection: any DatabaseConnection) throws -> [WriteOutcome]
    func insert(_ installations: [ImportedInstallation], on connection: any DatabaseConnection) throws -> [WriteOutcome]
    /// Links identities to accounts that are in the database (`ON CONFLICT DO NOTHING`): an
    /// identity linked already to its account is `.alreadyPresent`; one linked to another
    /// account, or whose account has another identity of that provider, is refused and stays
    /// as it is (`.skipped`, with `RefusalReason`'s wording).
    func insert(_ identities: [ImportedIdentity], on connection: any DatabaseConnection) throws -> [WriteOutcome]

    /// Tunes the database for the load; answers what undoes it (called however the import ends).
    func prepareLoad(_ database: any Database, options: ParseImporter.Options) throws -> () -> Void
    /// Runs `build` (the deferred index builds) in a write transaction, with the settings that
    /// make index builds fast.
    func buildIndexes<T>(_ database: any Database, options: ParseImporter.Options, _ build: (any DatabaseConnection) throws -> T) throws -> T
    /// Brings the planner's statistics of `tables` up to date after a bulk change.
    func refreshStatistics(of tables: [String], in database: any Database) throws
}

func makeImportBackend(for dialect: SQLDialect) -> any ImportBackend {
    switch dialect {
    case .sqlite: return SQLiteImportBackend()
    case .postgres: return PostgresImportBackend()
    }
}

/// What inserting one mapped row did.
enum WriteOutcome: Equatable {
    case imported
    /// A row with this objectId exists already (an earlier run): left as it is.
    case alreadyPresent
    case skipped(String)
}

/// The reasons both backends give for a row the database refuses, worded once.
enum RefusalReason {
    static let objectIdIsUsername = "objectId is another account's username"
    static let usernameIsObjectId = "username is another account's objectId"
    static let duplicateUsername = "duplicate username"
    static let duplicateEmail = "duplicate email"
    static let danglingRally = "dangling rally"
    static let duplicateVideo = "duplicate video"
    static let danglingOwner = "dangling owner"
    static let duplicateActivity = "duplicate"
    static let danglingFromUser = "dangling fromUser"
    static let danglingToUser = "dangling toUser"
    static let danglingVideo = "dangling video"
    static let duplicateDeviceToken = "duplicate device token"
    static let danglingUser = "dangling user"

    static func dayOutsideRally(day: Int, days: Int) -> String { "nDay \(day) outside the rally's \(days) days" }
    static func identityOfAnotherAccount(_ userID: String) -> String { "linked to another account (\(userID)); not linked" }
    static func accountHasAnotherIdentity(_ provider: IdentityProvider) -> String {
        "the account has another \(AuthDataMapper.displayName(provider)) identity; not linked"
    }
}
