import Auth
import Storage

/// What inserting one mapped row did.
enum WriteOutcome: Equatable {
    case imported
    /// A row with this objectId exists already (an earlier run): left as it is.
    case alreadyPresent
    case skipped(String)
}

/// The INSERTs of the import, one per table, each `ON CONFLICT(id) DO NOTHING` so that a
/// second run changes nothing. Pointers are checked by the database itself: the foreign
/// keys refuse a dangling one, and only then do indexed lookups name which pointer it was.
/// Duplicates are refused by the UNIQUE indexes (case-insensitive `*_key` columns, one
/// video per YouTube id, one like/flag per user and video, one follow per pair).
///
/// A refused statement leaves the surrounding transaction intact (SQLite aborts only the
/// statement), so the batch goes on.
struct ImportWriter {
    func insert(_ user: ImportedUser, on connection: any DatabaseConnection) throws -> WriteOutcome {
        // `GET /v1/users/{idOrUsername}` reads an id first (AccountStore.find(idOrUsername:)):
        // an objectId spelled like another account's username would answer for that account,
        // and a username spelled like another account's id would never be found by it.
        if try connection.fetchOne("SELECT 1 FROM users WHERE username_key = \(Validation.key(user.id)) AND id <> \(user.id)") != nil {
            return .skipped("objectId is another account's username")
        }
        if try AccountStore().isID(ofAnotherAccount: user.username, except: user.id, on: connection) {
            return .skipped("username is another account's objectId")
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
            if error.isUniqueViolation(on: "username_key") { return .skipped("duplicate username") }
            if error.isUniqueViolation(on: "email_key") { return .skipped("duplicate email") }
            return try refused(error)
        }
    }

    func insert(_ rally: ImportedRally, on connection: any DatabaseConnection) throws -> WriteOutcome {
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

    func insert(_ video: ImportedVideo, on connection: any DatabaseConnection) throws -> WriteOutcome {
        guard let rally = try connection.fetchOne("SELECT start_date, end_date FROM rallies WHERE id = \(video.rallyID)") else {
            return .skipped("dangling rally")
        }
        let days = try rally.decode(at: 1, as: Int.self) - rally.decode(at: 0, as: Int.self) + 1
        guard video.day <= days else { return .skipped("nDay \(video.day) outside the rally's \(days) days") }
        do {
            let changed = try connection.execute("""
                INSERT INTO videos (id, youtube_id, title, description, rally_id, day, owner_id, created_at, updated_at)
                VALUES (\(video.id), \(video.youtubeID), \(video.title), \(video.description), \(video.rallyID),
                        \(video.day), \(video.ownerID), \(video.createdAt), \(video.updatedAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            if error.isUniqueViolation(on: "youtube_id") { return .skipped("duplicate video") }
            if case .foreignKeyViolation = error {
                if try !exists("users", video.ownerID, on: connection) { return .skipped("dangling owner") }
                if try !exists("rallies", video.rallyID, on: connection) { return .skipped("dangling rally") }
            }
            return try refused(error)
        }
    }

    func insert(_ activity: ImportedActivity, on connection: any DatabaseConnection) throws -> WriteOutcome {
        do {
            let changed = try connection.execute("""
                INSERT INTO activities (id, type, from_user_id, to_user_id, video_id, content, created_at)
                VALUES (\(activity.id), \(activity.type), \(activity.fromUserID), \(activity.toUserID),
                        \(activity.videoID.databaseValue), \(activity.content.databaseValue), \(activity.createdAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            if case .uniqueViolation = error { return .skipped("duplicate") }
            if case .foreignKeyViolation = error {
                if try !exists("users", activity.fromUserID, on: connection) { return .skipped("dangling fromUser") }
                if try !exists("users", activity.toUserID, on: connection) { return .skipped("dangling toUser") }
                if let video = activity.videoID, try !exists("videos", video, on: connection) { return .skipped("dangling video") }
            }
            return try refused(error)
        }
    }

    func insert(_ installation: ImportedInstallation, on connection: any DatabaseConnection) throws -> WriteOutcome {
        do {
            let changed = try connection.execute("""
                INSERT INTO installations (id, user_id, platform, device_token, locale, created_at, updated_at)
                VALUES (\(installation.id), \(installation.userID), \(installation.platform), \(installation.deviceToken),
                        \(installation.locale.databaseValue), \(installation.createdAt), \(installation.updatedAt))
                ON CONFLICT (id) DO NOTHING
                """)
            return changed == 0 ? .alreadyPresent : .imported
        } catch {
            if error.isUniqueViolation(on: "device_token") { return .skipped("duplicate device token") }
            if case .foreignKeyViolation = error { return .skipped("dangling user") }
            return try refused(error)
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
