import Auth
import HTTP
import JSON
import Storage
import Telemetry

/// API.md "Personal data": `GET /v1/users/me/export`, the caller's data as one JSON file,
/// streamed (`AccountExport`), at most once a day (`ExportAllowance`).
struct ExportRoutes {
    let accounts: Accounts
    let database: any Database
    let clock: any WallClock

    func register(on router: RouterBuilder<Accounts.Identity>) {
        // On the blocking pool: the allowance is a write, which may wait for the writer.
        router.get("/v1/users/me/export", policy: .session(pool: .blocking), export)
    }

    @Sendable func export(_ request: Request, _ context: Context) throws -> Response {
        let caller = try context.caller()
        guard let account = try accounts.account(id: caller.userID) else { throw APIErrors.invalidSession }
        let now = clock.nowMillis()
        // A HEAD asks whether an export would be given, and makes none: it is not counted.
        try ExportAllowance().start(userID: account.id, now: now, on: database, counting: request.method != "HEAD")
        let day = CalendarDate.format(daysSince1970: Int(now.floorDivided(by: 86_400_000)))
        return .streamed(headers: [
            Response.jsonContentType,
            // A username is letters, digits, `_` and `.`: nothing to quote or escape.
            ("Content-Disposition", #"attachment; filename="pacenote-\#(account.username)-\#(day).json""#),
            ("Cache-Control", "no-store"),
        ], AccountExport(database: database, account: account, now: now, logger: context.logger))
    }
}

/// At most one export a day per account, kept in `account_exports` (migration 0018), so the
/// limit holds across restarts and for every server on one database.
struct ExportAllowance {
    /// A day, rolling: the next export is allowed this long after the last one started.
    static let intervalMillis: Int64 = 24 * 3_600 * 1_000

    /// Records an export of `userID` starting at `now` (unless not `counting`), or throws 429
    /// `rate_limited` with `Retry-After`: the whole seconds until the next is allowed.
    func start(userID: String, now: Int64, on database: any Database, counting: Bool = true) throws {
        // One transaction (SERIALIZABLE on PostgreSQL): two exports started at once through two
        // servers cannot both find no row; the loser is retried and sees the winner's.
        let waitMillis: Int64? = try database.write { connection in
            if let last = try connection.fetchValue(
                "SELECT last_export_at FROM account_exports WHERE user_id = \(userID)", as: Int64.self),
               now - last < Self.intervalMillis {
                return last + Self.intervalMillis - now
            }
            guard counting else { return nil }
            try connection.execute("""
                INSERT INTO account_exports (user_id, last_export_at) VALUES (\(userID), \(now))
                ON CONFLICT (user_id) DO UPDATE SET last_export_at = excluded.last_export_at
                """)
            return nil
        }
        if let waitMillis {
            throw APIError(status: 429, code: "rate_limited", message: "One data export a day; try again later.",
                           headers: [("Retry-After", String(max(1, (waitMillis + 999) / 1_000)))])
        }
    }
}

private extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
