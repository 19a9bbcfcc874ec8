import Auth
import Community
import Storage

/// The import on PostgreSQL: rows are checked and written a few thousand per statement.
///
/// A statement per row, as on SQLite, would cost a round trip to the server per row (1.8
/// million for the large export), and a refused row would abort the whole transaction
/// (PostgreSQL, unlike SQLite, does not roll back just the statement). So each call sends its
/// rows as arrays, one bound parameter per column (`unnest`: no limit on the rows per
/// statement, and one statement text whatever their number), and one statement classifies
/// every row against the database (already present, duplicate, dangling pointer: the same
/// checks, in the same order, as the SQLite backend's catch blocks, so the report is the
/// same), inserts the rows that pass in file order, and answers each row's outcome. Nothing is
/// refused by a constraint, so nothing aborts.
///
/// One statement sees the database as it was before it, not its own rows: it is exact only
/// for rows that cannot affect each other. So the rows of a call that share a key with another
/// row of the call (an id, a username, an email, a YouTube id, a like's user and video, ...:
/// `ConflictKey`) are written one per statement, in file order; the rows between them go in
/// runs. An export has few such rows (the large benchmark export has none).
struct PostgresImportBackend: ImportBackend {
    /// Small transactions: PostgreSQL's commit costs little, and a transaction's rows are held
    /// in memory so that a serialization failure can run it again (see ParseImporter).
    func rowsPerTransaction(_ options: ParseImporter.Options) -> Int { min(options.batchSize, Self.rowsPerStatement) }

    /// One statement per transaction: each also reads the ids of every user and video once (for
    /// the pointer checks, as a hash), so fewer, larger statements read them fewer times.
    var rowsPerWrite: Int { Self.rowsPerStatement }
    static let rowsPerStatement = 10_000

    // MARK: Rows

    func insert(_ users: [ImportedUser], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try write(users, on: connection, keys: { user in
            // Every value the SQLite backend compares with another row's: the objectId against
            // usernames and ids, the username against ids and usernames, the email.
            let idKey = Validation.key(user.id), usernameKey = Validation.key(user.username)
            return [.id(user.id), .id(user.username), .id(usernameKey), .name(idKey), .name(usernameKey), .email(Validation.key(user.email))]
        }, statement: Self.usersStatement, columns: { users in [
            .text(users.map(\.id)), .text(users.map { Validation.key($0.id) }), .text(users.map(\.username)),
            .text(users.map { Validation.key($0.username) }), .text(users.map(\.email)), .text(users.map { Validation.key($0.email) }),
            .boolean(users.map(\.emailVerified)), .text(users.map(\.displayName)), .text(users.map(\.passwordHash)),
            .integer(users.map(\.createdAt)), .integer(users.map(\.updatedAt)),
        ] }, outcome: { code, _ in
            switch code {
            case 2: return .skipped(RefusalReason.objectIdIsUsername)
            case 3: return .skipped(RefusalReason.usernameIsObjectId)
            case 4: return .skipped(RefusalReason.duplicateEmail)
            case 5: return .skipped(RefusalReason.duplicateUsername)
            default: return nil
            }
        })
    }

    func insert(_ rallies: [ImportedRally], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try write(rallies, on: connection, keys: { [.id($0.id)] }, statement: Self.ralliesStatement, columns: { rallies in [
            .text(rallies.map(\.id)), .text(rallies.map(\.name)), .text(rallies.map(\.country)),
            .integer(rallies.map { Int64($0.startDate) }), .integer(rallies.map { Int64($0.endDate) }),
            .integer(rallies.map(\.createdAt)), .integer(rallies.map(\.updatedAt)),
        ] }, outcome: { _, _ in nil })
    }

    func insert(_ videos: [ImportedVideo], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try write(videos, on: connection, keys: { [.id($0.id), .youtube($0.youtubeID)] }, statement: Self.videosStatement, columns: { videos in [
            .text(videos.map(\.id)), .text(videos.map(\.youtubeID)), .text(videos.map(\.title)), .text(videos.map(\.description)),
            .lookup(videos.map(\.rallyID)), .integer(videos.map { Int64($0.day) }), .lookup(videos.map(\.ownerID)),
            .integer(videos.map(\.createdAt)), .integer(videos.map(\.updatedAt)),
        ] }, outcome: { code, video in
            switch code {
            case 2: return .skipped(RefusalReason.danglingRally)
            case 3: return .skipped(RefusalReason.dayOutsideRally(day: video.row.day, days: video.days ?? 0))
            case 4: return .skipped(RefusalReason.duplicateVideo)
            case 5: return .skipped(RefusalReason.danglingOwner)
            default: return nil
            }
        })
    }

    func insert(_ activities: [ImportedActivity], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try write(activities, on: connection, keys: { activity in
            switch activity.type {
            case 1, 3: return [.id(activity.id), .pair(activity.type, activity.fromUserID, activity.videoID ?? "")]
            case 4: return [.id(activity.id), .pair(4, activity.fromUserID, activity.toUserID)]
            default: return [.id(activity.id)]
            }
        }, statement: Self.activitiesStatement, columns: { activities in [
            .text(activities.map(\.id)), .integer(activities.map { Int64($0.type) }), .lookup(activities.map(\.fromUserID)),
            .lookup(activities.map(\.toUserID)), .lookup(activities.map(\.videoID)), .optionalText(activities.map(\.content)),
            .integer(activities.map(\.createdAt)),
        ] }, outcome: { code, _ in
            switch code {
            case 2: return .skipped(RefusalReason.duplicateActivity)
            case 3: return .skipped(RefusalReason.danglingFromUser)
            case 4: return .skipped(RefusalReason.danglingToUser)
            case 5: return .skipped(RefusalReason.danglingVideo)
            default: return nil
            }
        })
    }

    func insert(_ installations: [ImportedInstallation], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try write(installations, on: connection, keys: { [.id($0.id), .deviceToken($0.deviceToken)] }, statement: Self.installationsStatement, columns: { installations in [
            .text(installations.map(\.id)), .lookup(installations.map(\.userID)), .text(installations.map(\.platform)),
            .text(installations.map(\.deviceToken)), .optionalText(installations.map(\.locale)),
            .integer(installations.map(\.createdAt)), .integer(installations.map(\.updatedAt)),
        ] }, outcome: { code, _ in
            switch code {
            case 2: return .skipped(RefusalReason.duplicateDeviceToken)
            case 3: return .skipped(RefusalReason.danglingUser)
            default: return nil
            }
        })
    }

    func insert(_ identities: [ImportedIdentity], on connection: any DatabaseConnection) throws -> [WriteOutcome] {
        try write(identities, on: connection, keys: { [.identity($0.provider.rawValue, $0.subject), .accountProvider($0.userID, $0.provider.rawValue)] },
                  statement: Self.identitiesStatement, columns: { identities in [
            .text(identities.map(\.provider.rawValue)), .text(identities.map(\.subject)), .text(identities.map(\.userID)),
            .integer(identities.map(\.createdAt)),
        ] }, outcome: { code, identity in
            switch code {
            case 2: return .skipped(RefusalReason.identityOfAnotherAccount(identity.holder ?? "?"))
            case 3: return .skipped(RefusalReason.accountHasAnotherIdentity(identity.row.provider))
            default: return nil
            }
        })
    }

    // MARK: Tuning

    /// Nothing session-wide: the database lends a different session to each transaction.
    func prepareLoad(_ database: any Database, options: ParseImporter.Options) throws -> () -> Void { {} }

    /// The index builds sort in memory up to this (PostgreSQL's default is 64 MB); the server
    /// also sorts with parallel workers (`max_parallel_maintenance_workers`).
    static let maintenanceWorkMemMiB = 256

    func buildIndexes<T>(_ database: any Database, options: ParseImporter.Options, _ build: (any DatabaseConnection) throws -> T) throws -> T {
        try database.write { connection in
            try connection.executeScript(SQL(unsafeSQL: "SET LOCAL maintenance_work_mem = '\(Self.maintenanceWorkMemMiB)MB'"))
            return try build(connection)
        }
    }

    /// Autovacuum analyzes a table some time after it changed; the planner meanwhile keeps the
    /// statistics of the empty tables, which would make it join millions of rows by nested loops.
    func refreshStatistics(of tables: [String], in database: any Database) throws {
        try database.write { connection in
            try connection.execute(SQL(unsafeSQL: "ANALYZE " + tables.joined(separator: ", ")))
        }
    }
}

// MARK: - Statements

extension PostgresImportBackend {
    /// A key whose value two rows of one call may share, and then affect each other's outcome.
    enum ConflictKey: Hashable {
        /// An objectId, or a username compared with objectIds.
        case id(String)
        /// A lower-cased username, or a lower-cased objectId compared with usernames.
        case name(String)
        case email(String)
        case youtube(String)
        case deviceToken(String)
        /// A like or flag (type, user, video) or a follow (4, user, followed user).
        case pair(Int, String, String)
        /// An identity's (provider, subject), and an account's (user id, provider).
        case identity(String, String)
        case accountProvider(String, String)
    }

    /// One column of a call's rows, sent as one array parameter.
    enum Column {
        case text([String])
        case optionalText([String?])
        /// Values only ever looked up (pointers): one holding a NUL, which PostgreSQL text cannot
        /// hold and no stored id contains, is sent as NULL, which matches no row either.
        case lookup([String?])
        case integer([Int64])
        case boolean([Bool])

        /// PostgreSQL's text form of the array (`{"a","b",NULL}`).
        var literal: String {
            switch self {
            case .text(let values): return PostgresArray.literal(values)
            case .optionalText(let values): return PostgresArray.literal(values)
            case .lookup(let values): return PostgresArray.literal(values.map { value in value.flatMap { $0.utf8.contains(0) ? nil : $0 } })
            case .integer(let values): return "{" + values.map(String.init).joined(separator: ",") + "}"
            case .boolean(let values): return "{" + values.map { $0 ? "t" : "f" }.joined(separator: ",") + "}"
            }
        }
    }

    /// Writes `rows` in order: runs of rows that share no `keys` with any other row of the call
    /// in one statement each, the others one by one. `outcome` maps a statement's code (2 and
    /// up) to the refusal; 0 is imported, 1 already present.
    private func write<Row>(
        _ rows: [Row], on connection: any DatabaseConnection, keys: (Row) -> [ConflictKey], statement: String,
        columns: ([Row]) -> [Column], outcome: (Int, (row: Row, days: Int?, holder: String?)) -> WriteOutcome?
    ) throws -> [WriteOutcome] {
        // A statement that runs once over a few thousand rows gains nothing from JIT
        // compilation, which cost 20 ms per statement here (the large export has 720 of them).
        try connection.executeScript("SET LOCAL jit = off")
        var holders: [ConflictKey: Int] = [:]
        let rowKeys = rows.map { Set(keys($0)) }
        for keys in rowKeys { for key in keys { holders[key, default: 0] += 1 } }
        let alone = rowKeys.map { keys in keys.contains { holders[$0, default: 0] > 1 } }

        /// What an answer says of its row; nil for a row that passed every check but was not
        /// inserted: another session committed a row holding one of its keys meanwhile.
        func resolve(_ row: Row, _ answer: Answer) -> WriteOutcome? {
            switch answer.code {
            case 0: return answer.inserted ? .imported : nil
            case 1: return .alreadyPresent
            default: return outcome(answer.code, (row, answer.days, answer.holder))
            }
        }

        var outcomes: [WriteOutcome] = []
        outcomes.reserveCapacity(rows.count)
        var start = 0
        while start < rows.count {
            var end = start + 1
            if !alone[start] { while end < rows.count && !alone[end] { end += 1 } }
            let batch = Array(rows[start..<end])
            for (row, answer) in zip(batch, try run(batch, on: connection, statement: statement, columns: columns)) {
                if let resolved = resolve(row, answer) {
                    outcomes.append(resolved)
                } else if let again = resolve(row, try run([row], on: connection, statement: statement, columns: columns)[0]) {
                    // Checked again alone, the row shows which key is taken now.
                    outcomes.append(again)
                } else {
                    throw ImportStatementError(statement: statement)
                }
            }
            start = end
        }
        return outcomes
    }

    /// One row's answer: its code, whether it was inserted, (videos) its rally's days and
    /// (identities) the account that holds the identity already.
    private typealias Answer = (code: Int, inserted: Bool, days: Int?, holder: String?)

    /// Runs one statement over `rows`, each `$` of its text bound to the next column's array.
    private func run<Row>(_ rows: [Row], on connection: any DatabaseConnection, statement: String, columns: ([Row]) -> [Column]) throws -> [Answer] {
        var sql = SQL(unsafeSQL: "")
        var rest = Substring(statement)
        for column in columns(rows) {
            guard let dollar = rest.firstIndex(of: "$") else { break }
            sql = sql + SQL(unsafeSQL: String(rest[..<dollar])) + "\(column.literal)"
            rest = rest[rest.index(after: dollar)...]
        }
        sql = sql + SQL(unsafeSQL: String(rest))
        let answers = try connection.fetchAll(sql) { reader in
            (code: try reader.next(as: Int.self), inserted: try reader.next(as: Bool.self), days: try reader.next(as: Int?.self),
             holder: try reader.next(as: String?.self))
        }
        guard answers.count == rows.count else { throw ImportStatementError(statement: statement) }
        return answers
    }

    /// The statement of one class. `input` is an `unnest` of the column arrays (`$` marks each
    /// parameter, in `columns` order) `WITH ORDINALITY` as `i (..., ord)`; `checks` are tried in
    /// order, the SQLite backend's order, each with its code (1 already present, 2 and up a
    /// refusal; 0 when none holds). Answers per row, in input order: the code, whether the row
    /// was inserted, `days`, and a NULL text (the identities' holder, see `identitiesStatement`).
    ///
    /// Every subquery reads the database as it was before the statement: the `inserted` rows
    /// are not seen by the checks (which is why rows sharing a key go alone).
    private static func statement(input: String, table: String, insertColumns: String, checks: [(String, Int)],
                                  join: String = "", days: String = "NULL::bigint") -> String {
        let cases = checks.map { "WHEN \($0.0) THEN \($0.1)" }.joined(separator: "\n                ")
        return """
            WITH input AS (
                SELECT * FROM \(input)
            ), checked AS (
                SELECT i.*, \(days) AS days, CASE
                    \(cases)
                    ELSE 0 END AS outcome
                FROM input i \(join)
            ), inserted AS (
                INSERT INTO \(table) (\(insertColumns))
                SELECT \(insertColumns) FROM checked WHERE outcome = 0 ORDER BY ord
                ON CONFLICT DO NOTHING
                RETURNING id
            )
            SELECT c.outcome, n.id IS NOT NULL, c.days, NULL::text FROM checked c LEFT JOIN inserted n ON n.id = c.id ORDER BY c.ord
            """
    }

    static let usersStatement = statement(
        input: """
            unnest($::text[], $::text[], $::text[], $::text[], $::text[], $::text[], $::boolean[], $::text[], $::text[], $::bigint[], $::bigint[])
                WITH ORDINALITY AS i (id, id_key, username, username_key, email, email_key, email_verified, display_name, password_hash, created_at, updated_at, ord)
            """,
        table: "users",
        insertColumns: "id, username, username_key, email, email_key, email_verified, display_name, password_hash, created_at, updated_at",
        checks: [
            ("EXISTS (SELECT 1 FROM users u WHERE u.username_key = i.id_key AND u.id <> i.id)", 2),
            ("EXISTS (SELECT 1 FROM users u WHERE u.id IN (i.username, i.username_key) AND u.id <> i.id)", 3),
            ("EXISTS (SELECT 1 FROM users u WHERE u.id = i.id)", 1),
            // SQLite checks the email's UNIQUE index before the username's.
            ("EXISTS (SELECT 1 FROM users u WHERE u.email_key = i.email_key)", 4),
            ("EXISTS (SELECT 1 FROM users u WHERE u.username_key = i.username_key)", 5),
        ]
    )

    static let ralliesStatement = statement(
        input: """
            unnest($::text[], $::text[], $::text[], $::bigint[], $::bigint[], $::bigint[], $::bigint[])
                WITH ORDINALITY AS i (id, name, country, start_date, end_date, created_at, updated_at, ord)
            """,
        table: "rallies",
        insertColumns: "id, name, country, start_date, end_date, created_at, updated_at",
        checks: [("EXISTS (SELECT 1 FROM rallies r WHERE r.id = i.id)", 1)]
    )

    static let videosStatement = statement(
        input: """
            unnest($::text[], $::text[], $::text[], $::text[], $::text[], $::bigint[], $::text[], $::bigint[], $::bigint[])
                WITH ORDINALITY AS i (id, youtube_id, title, description, rally_id, day, owner_id, created_at, updated_at, ord)
            """,
        table: "videos",
        insertColumns: "id, youtube_id, title, description, rally_id, day, owner_id, created_at, updated_at",
        checks: [
            ("r.id IS NULL", 2),
            ("i.day > r.end_date - r.start_date + 1", 3),
            ("EXISTS (SELECT 1 FROM videos v WHERE v.id = i.id)", 1),
            ("EXISTS (SELECT 1 FROM videos v WHERE v.youtube_id = i.youtube_id)", 4),
            ("NOT EXISTS (SELECT 1 FROM users u WHERE u.id = i.owner_id)", 5),
        ],
        join: "LEFT JOIN rallies r ON r.id = i.rally_id",
        days: "r.end_date - r.start_date + 1"
    )

    static let activitiesStatement = statement(
        input: """
            unnest($::text[], $::bigint[], $::text[], $::text[], $::text[], $::text[], $::bigint[])
                WITH ORDINALITY AS i (id, type, from_user_id, to_user_id, video_id, content, created_at, ord)
            """,
        table: "activities",
        insertColumns: "id, type, from_user_id, to_user_id, video_id, content, created_at",
        checks: [
            ("EXISTS (SELECT 1 FROM activities a WHERE a.id = i.id)", 1),
            // One test per partial UNIQUE index, with its literal type, so that the index serves it.
            ("i.type = \(ActivityKind.like.rawValue) AND EXISTS (SELECT 1 FROM activities a WHERE a.type = \(ActivityKind.like.rawValue) AND a.from_user_id = i.from_user_id AND a.video_id = i.video_id)", 2),
            ("i.type = \(ActivityKind.inappropriate.rawValue) AND EXISTS (SELECT 1 FROM activities a WHERE a.type = \(ActivityKind.inappropriate.rawValue) AND a.from_user_id = i.from_user_id AND a.video_id = i.video_id)", 2),
            ("i.type = \(ActivityKind.follow.rawValue) AND EXISTS (SELECT 1 FROM activities a WHERE a.type = \(ActivityKind.follow.rawValue) AND a.from_user_id = i.from_user_id AND a.to_user_id = i.to_user_id)", 2),
            ("NOT EXISTS (SELECT 1 FROM users u WHERE u.id = i.from_user_id)", 3),
            ("NOT EXISTS (SELECT 1 FROM users u WHERE u.id = i.to_user_id)", 4),
            ("i.type <> \(ActivityKind.follow.rawValue) AND NOT EXISTS (SELECT 1 FROM videos v WHERE v.id = i.video_id)", 5),
        ]
    )

    static let installationsStatement = statement(
        input: """
            unnest($::text[], $::text[], $::text[], $::text[], $::text[], $::bigint[], $::bigint[])
                WITH ORDINALITY AS i (id, user_id, platform, device_token, locale, created_at, updated_at, ord)
            """,
        table: "installations",
        insertColumns: "id, user_id, platform, device_token, locale, created_at, updated_at",
        checks: [
            ("EXISTS (SELECT 1 FROM installations n WHERE n.id = i.id)", 1),
            ("EXISTS (SELECT 1 FROM installations n WHERE n.device_token = i.device_token)", 2),
            ("NOT EXISTS (SELECT 1 FROM users u WHERE u.id = i.user_id)", 3),
        ]
    )
}

extension PostgresImportBackend {
    /// The identities' statement, in the shape of `statement(...)` (whose rows are found by an
    /// `id`, which identities have not): checked in the SQLite backend's order (the identity
    /// linked to this account, 1; to another one, 2, with that account as the holder; the
    /// account has another identity of the provider, 3), inserted `ON CONFLICT DO NOTHING`.
    static let identitiesStatement = """
        WITH input AS (
            SELECT * FROM unnest($::text[], $::text[], $::text[], $::bigint[])
                WITH ORDINALITY AS i (provider, subject, user_id, created_at, ord)
        ), checked AS (
            SELECT i.*, h.user_id AS holder, CASE
                WHEN h.user_id = i.user_id THEN 1
                WHEN h.user_id IS NOT NULL THEN 2
                WHEN EXISTS (SELECT 1 FROM identities x WHERE x.user_id = i.user_id AND x.provider = i.provider) THEN 3
                ELSE 0 END AS outcome
            FROM input i LEFT JOIN identities h ON h.provider = i.provider AND h.subject = i.subject
        ), inserted AS (
            INSERT INTO identities (provider, subject, user_id, created_at, vouched)
            SELECT provider, subject, user_id, created_at, TRUE FROM checked WHERE outcome = 0 ORDER BY ord
            ON CONFLICT DO NOTHING
            RETURNING provider, subject
        )
        SELECT c.outcome, n.subject IS NOT NULL, NULL::bigint, c.holder FROM checked c
        LEFT JOIN inserted n ON n.provider = c.provider AND n.subject = c.subject ORDER BY c.ord
        """
}

/// A bulk statement answered something it cannot: a row count other than its input's, or a row
/// that passed every check and was neither inserted nor refused when written alone.
struct ImportStatementError: Error, CustomStringConvertible {
    let statement: String
    var description: String { "the import's statement gave an unexpected answer: \(statement.prefix(200))" }
}

/// PostgreSQL's text form of a one-dimensional text array.
enum PostgresArray {
    /// `{"a","b \"quoted\"",NULL}`: every element quoted, `"` and `\` escaped.
    static func literal(_ values: [String?]) -> String {
        var text = "{"
        text.reserveCapacity(values.count * 16)
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            guard let value else { text += "NULL"; continue }
            text += "\""
            for scalar in value.unicodeScalars {
                if scalar == "\"" || scalar == "\\" { text += "\\" }
                text.unicodeScalars.append(scalar)
            }
            text += "\""
        }
        return text + "}"
    }

    static func literal(_ values: [String]) -> String { literal(values.map(Optional.some)) }
}
