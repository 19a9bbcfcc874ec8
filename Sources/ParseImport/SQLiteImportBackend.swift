import Auth
import Storage

/// The import on SQLite: one INSERT per row, each `ON CONFLICT(id) DO NOTHING` so that a
/// second run changes nothing. Pointers are checked by the database itself: the foreign
/// keys refuse a dangling one, and only then do indexed lookups name which pointer it was.
/// Duplicates are refused by the UNIQUE indexes (case-insensitive `*_key` columns, one
/// video per YouTube id, one like/flag per user and video, one follow per pair).
///
/// A refused statement leaves the surrounding transaction intact (SQLite aborts only the
/// statement), so the batch goes on; and with SQLite in the same process, a statement per row
/// costs no round trip. The page caches are enlarged for the load, and index builds sort in
/// small runs on worker threads (see `buildIndexes`).
struct SQLiteImportBackend: ImportBackend {
    func rowsPerTransaction(_ options: ParseImporter.Options) -> Int { options.batchSize }

    /// A statement per row either way; small calls keep the reading thread busy beside this one.
    var rowsPerWrite: Int { PreparedStream<ImportedUser>.chunkSize }

    func insert(_ users: [ImportedUser], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try users.map { try insertRow($0, on: connection) }
    }

    func insert(_ rallies: [ImportedRally], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try rallies.map { try insertRow($0, on: connection) }
    }

    func insert(_ videos: [ImportedVideo], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try videos.map { try insertRow($0, on: connection) }
    }

    func insert(_ activities: [ImportedActivity], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try activities.map { try insertRow($0, on: connection) }
    }

    func insert(_ installations: [ImportedInstallation], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try installations.map { try insertRow($0, on: connection) }
    }

    func insert(_ identities: [ImportedIdentity], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try identities.map { try insertRow($0, on: connection) }
    }

    // MARK: Tuning

    /// A larger page cache for the load, and for temporary tables: the following timeline's work
    /// tables are temporary (in files, see ImportParseCommand), and with SQLite's default 2 MB
    /// cache for them, their 100 MB were read back from the file page by page.
    func prepareLoad(_ database: any Database, options: ParseImporter.Options) throws -> () -> Void {
        let previous = try database.write { connection in
            let main = try connection.fetchValue("PRAGMA cache_size", as: Int.self)
            let temporary = try connection.fetchValue("PRAGMA temp.cache_size", as: Int.self)
            try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(options.cacheMiB * 1024)"))
            try connection.execute(SQL(unsafeSQL: "PRAGMA temp.cache_size = -\(options.temporaryCacheMiB * 1024)"))
            return (main: main, temporary: temporary)
        }
        return {
            _ = try? database.write { connection in
                if let main = previous.main { try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = \(main)")) }
                if let temporary = previous.temporary { try connection.execute(SQL(unsafeSQL: "PRAGMA temp.cache_size = \(temporary)")) }
            }
        }
    }

    /// Building an index is mostly sorting. With a small page cache SQLite sorts in 2 MiB runs,
    /// which worker threads sort beside the main one before a merge; one run the size of the
    /// 256 MiB cache is sorted on one core, and more slowly (the large export's indexes: 20 s
    /// with the big cache, 11 s with this).
    func buildIndexes<T>(_ database: any Database, options: ParseImporter.Options, _ build: (any DatabaseConnection) throws -> T) throws -> T {
        try database.write { connection in
            try connection.execute(SQL(unsafeSQL: "PRAGMA threads = \(options.sortThreads)"))
            try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(options.indexSortCacheMiB * 1024)"))
        }
        defer {
            _ = try? database.write { connection in
                try connection.execute("PRAGMA threads = 0")
                try connection.execute(SQL(unsafeSQL: "PRAGMA cache_size = -\(options.cacheMiB * 1024)"))
            }
        }
        return try database.write(build)
    }

    /// SQLite plans these queries well without statistics, as it always has here.
    func refreshStatistics(of tables: [String], in database: any Database) throws {}

    // MARK: Rows

    private func insertRow(_ user: ImportedUser, on connection: any DatabaseConnection) throws -> WriteOutcome {
        // `GET /v1/users/{idOrUsername}` reads an id first (AccountStore.find(idOrUsername:)):
        // an objectId spelled like another account's username would answer for that account,
        // and a username spelled like another account's id would never be found by it.
        if try connection.fetchOne("SELECT 1 FROM users WHERE username_key = \(Validation.key(user.id)) AND id <> \(user.id)") != nil {
            return .skipped(RefusalReason.objectIdIsUsername)
        }
        if try AccountStore().isID(ofAnotherAccount: user.username, except: user.id, on: connection) {
            return .skipped(RefusalReason.usernameIsObjectId)
        }
        do {
            let changed = try connection.execute("""
                INSERT INTO users (id, username, username_key, email, email_key, email_verified, display_name,
                                   password_hash, role, created_at, updated_at)
                VALUES (\(user.id), \(user.username), \(Validation.key(user.username)), \(user.email),
                        \(Validation.key(user.email)), \(user.emailVerified), \(user.displayName),
                        \(user.passwordHash), 'user', \(user.createdAt), \(user.updatedAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            if error.isUniqueViolation(on: "username_key") { return .skipped(RefusalReason.duplicateUsername) }
            if error.isUniqueViolation(on: "email_key") { return .skipped(RefusalReason.duplicateEmail) }
            return try refused(error)
        }
    }

    private func insertRow(_ rally: ImportedRally, on connection: any DatabaseConnection) throws -> WriteOutcome {
        do {
            let changed = try connection.execute("""
                INSERT INTO rallies (id, name, country, start_date, end_date, created_at, updated_at)
                VALUES (\(rally.id), \(rally.name), \(rally.country), \(rally.startDate), \(rally.endDate),
                        \(rally.createdAt), \(rally.updatedAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            return try refused(error)
        }
    }

    private func insertRow(_ video: ImportedVideo, on connection: any DatabaseConnection) throws -> WriteOutcome {
        guard let rally = try connection.fetchOne("SELECT start_date, end_date FROM rallies WHERE id = \(video.rallyID)") else {
            return .skipped(RefusalReason.danglingRally)
        }
        let days = try rally.decode(at: 1, as: Int.self) - rally.decode(at: 0, as: Int.self) + 1
        guard video.day <= days else { return .skipped(RefusalReason.dayOutsideRally(day: video.day, days: days)) }
        do {
            let changed = try connection.execute("""
                INSERT INTO videos (id, youtube_id, title, description, rally_id, day, owner_id, created_at, updated_at)
                VALUES (\(video.id), \(video.youtubeID), \(video.title), \(video.description), \(video.rallyID),
                        \(video.day), \(video.ownerID), \(video.createdAt), \(video.updatedAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            if error.isUniqueViolation(on: "youtube_id") { return .skipped(RefusalReason.duplicateVideo) }
            if case .foreignKeyViolation = error {
                if try !exists("users", video.ownerID, on: connection) { return .skipped(RefusalReason.danglingOwner) }
                if try !exists("rallies", video.rallyID, on: connection) { return .skipped(RefusalReason.danglingRally) }
            }
            return try refused(error)
        }
    }

    private func insertRow(_ activity: ImportedActivity, on connection: any DatabaseConnection) throws -> WriteOutcome {
        do {
            let changed = try connection.execute("""
                INSERT INTO activities (id, type, from_user_id, to_user_id, video_id, content, created_at)
                VALUES (\(activity.id), \(activity.type), \(activity.fromUserID), \(activity.toUserID),
                        \(activity.videoID.databaseValue), \(activity.content.databaseValue), \(activity.createdAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            if case .uniqueViolation = error { return .skipped(RefusalReason.duplicateActivity) }
            if case .foreignKeyViolation = error {
                if try !exists("users", activity.fromUserID, on: connection) { return .skipped(RefusalReason.danglingFromUser) }
                if try !exists("users", activity.toUserID, on: connection) { return .skipped(RefusalReason.danglingToUser) }
                if let video = activity.videoID, try !exists("videos", video, on: connection) { return .skipped(RefusalReason.danglingVideo) }
            }
            return try refused(error)
        }
    }

    private func insertRow(_ installation: ImportedInstallation, on connection: any DatabaseConnection) throws -> WriteOutcome {
        do {
            let changed = try connection.execute("""
                INSERT INTO installations (id, user_id, platform, device_token, locale, created_at, updated_at)
                VALUES (\(installation.id), \(installation.userID), \(installation.platform), \(installation.deviceToken),
                        \(installation.locale.databaseValue), \(installation.createdAt), \(installation.updatedAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            if error.isUniqueViolation(on: "device_token") { return .skipped(RefusalReason.duplicateDeviceToken) }
            if case .foreignKeyViolation = error { return .skipped(RefusalReason.danglingUser) }
            return try refused(error)
        }
    }

    /// `ON CONFLICT DO NOTHING` on both keys: an identity never moves to another account and an
    /// account never gets a second identity of a provider; which key held it is looked up after.
    private func insertRow(_ identity: ImportedIdentity, on connection: any DatabaseConnection) throws -> WriteOutcome {
        let changed = try connection.execute("""
            INSERT INTO identities (provider, subject, user_id, created_at, vouched)
            VALUES (\(identity.provider.rawValue), \(identity.subject), \(identity.userID), \(identity.createdAt), \(ImportedIdentity.vouched))
            ON CONFLICT DO NOTHING
            """)
        if changed == 1 { return .imported }
        let holder = try connection.fetchValue(
            "SELECT user_id FROM identities WHERE provider = \(identity.provider.rawValue) AND subject = \(identity.subject)", as: String.self)
        switch holder {
        case identity.userID?: return .alreadyPresent
        case let other?: return .skipped(RefusalReason.identityOfAnotherAccount(other))
        case nil: return .skipped(RefusalReason.accountHasAnotherIdentity(identity.provider))
        }
    }

    private func exists(_ table: String, _ id: String, on connection: any DatabaseConnection) throws -> Bool {
        try connection.fetchOne("SELECT 1 FROM \(unsafe: table) WHERE id = \(id)") != nil
    }

    /// A constraint the row breaks is a skip with the constraint named; anything else
    /// (disk full, I/O error) stops the import.
    private func refused(_ error: StorageError) throws -> WriteOutcome {
        switch error {
        case .uniqueViolation(let constraint): return .skipped("duplicate (\(constraint))")
        case .foreignKeyViolation: return .skipped("dangling pointer")
        case .checkViolation(let constraint): return .skipped("refused by a check (\(constraint ?? "?"))")
        case .notNullViolation(let column): return .skipped("missing \(column ?? "a required field")")
        default: throw error
        }
    }
}
