import Foundation
import Synchronization
import Telemetry
import TestSupport
import Testing
@testable import Auth
@testable import Storage

/// A clock whose time only moves when a test moves it, so lockouts and session expiry
/// are tested without sleeping.
final class ManualClock: WallClock {
    private let now: Mutex<Int64>

    /// Starts at 2014-04-05T10:15:30Z, an arbitrary but realistic instant.
    init(startMillis: Int64 = 1_396_692_930_000) {
        now = Mutex(startMillis)
    }

    func nowMillis() -> Int64 { now.withLock { $0 } }

    func advance(millis: Int64) { now.withLock { $0 += millis } }
    func advance(seconds: Int64) { advance(millis: seconds * 1_000) }
    func advance(minutes: Int64) { advance(millis: minutes * 60_000) }
}

/// An `Accounts` service over a temporary database and a manual clock, at bcrypt cost 4.
final class AuthFixture: Sendable {
    static let password = "rally-fan-2014"

    let temporary: TemporaryDatabase
    let clock: ManualClock
    let accounts: Accounts
    let configuration: Accounts.Configuration

    var database: any Database { temporary.database }

    init(_ configure: (inout Accounts.Configuration) -> Void = { _ in }) throws {
        temporary = try TemporaryDatabase(migrated: true)
        clock = ManualClock()
        var configuration = Accounts.Configuration()
        configuration.bcryptCost = 4
        configure(&configuration)
        self.configuration = configuration
        accounts = Accounts(database: temporary.database, configuration: configuration, clock: clock)
    }

    /// Signs up `username` with a derived email and the shared test password.
    @discardableResult
    func signUp(_ username: String, email: String? = nil, password: String = AuthFixture.password,
                displayName: String? = nil) throws -> Accounts.SignedIn {
        try accounts.signUp(username: username, email: email ?? "\(username.lowercased())@example.com",
                            password: password, displayName: displayName)
    }

    /// All rows of a query, straight from the database.
    func rows(_ sql: SQL) throws -> [Row] {
        try database.read { connection in try connection.fetchAll(sql) }
    }

    func value<T: DatabaseValueConvertible>(_ sql: SQL, as type: T.Type = T.self) throws -> T? {
        try database.read { connection in try connection.fetchValue(sql, as: T.self) }
    }

    func execute(_ sql: SQL) throws {
        try database.write { connection in _ = try connection.execute(sql) }
    }

    func sessionCount(userID: String) throws -> Int {
        try value("SELECT COUNT(*) FROM sessions WHERE user_id = \(userID)", as: Int.self) ?? 0
    }

    /// Bans an account the way moderation will: by setting `banned_at`.
    func ban(userID: String) throws {
        try execute("UPDATE users SET banned_at = \(clock.nowMillis()), ban_reason = 'test' WHERE id = \(userID)")
    }

    /// True when the token resolves to a session.
    func tokenWorks(_ token: SessionToken) -> Bool {
        (try? accounts.authenticate(token: token.value)) != nil
    }
}

/// The `field` a validation error names, or nil when the call did not fail validation.
/// Records an issue when the call succeeded or failed with another error.
func validationField(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> String? {
    do {
        try body()
        Issue.record("expected a validation error, but the call succeeded", sourceLocation: sourceLocation)
    } catch AuthError.validation(let field, _) {
        return field
    } catch {
        Issue.record("expected a validation error, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
