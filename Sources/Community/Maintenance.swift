import Auth
import Dispatch
import CloudHooks
import Storage
import Telemetry

/// Periodic clean-up while the server runs: expired sessions, lockout records that no
/// longer count, the days users were active older than 90 days (`Accounts.purgeExpired`),
/// outbox jobs finished more than a day ago, and the like de-duplication
/// marks of pushes older than an hour, and the change log's tombstones older than
/// `--changes-retention`. Runs on its own queue, never on a serving thread.
package final class Maintenance {
    /// Tombstones removed per transaction, and transactions per run: a purge never holds the
    /// writer long (SQLite's one writer, PostgreSQL's row locks), and a backlog of them (a mass
    /// deletion) goes over several runs rather than in one.
    static let tombstoneBatch = 500
    static let tombstoneBatchesPerRun = 20

    private let timer: any DispatchSourceTimer

    package init(database: any Database, accounts: Accounts, logger: Logger, changesRetentionMillis: Int64,
                 interval: DispatchTimeInterval = .seconds(600)) {
        let queue = DispatchQueue(label: "pacenote.maintenance", qos: .utility)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(5))
        timer.setEventHandler {
            do {
                let removed = try accounts.purgeExpired()
                let now = SystemClock().nowMillis()
                try Outbox().purgeDone(before: now - 86_400_000, in: database)
                try database.write { connection in try NotificationStore().purgeRecentPushes(before: now - 3_600_000, on: connection) }
                let tombstones = try Self.purgeTombstones(before: now - changesRetentionMillis, in: database)
                if tombstones > 0 { logger.info("change log tombstones removed", ["count": String(tombstones)]) }
                if removed > 0 { logger.info("expired sessions removed", ["count": String(removed)]) }
            } catch {
                logger.warning("maintenance failed", ["error": String(describing: error)])
            }
        }
        timer.resume()
    }

    /// Up to `tombstoneBatchesPerRun` transactions of `tombstoneBatch` tombstones written
    /// before `cutoff`; answers how many went.
    static func purgeTombstones(before cutoff: Int64, in database: any Database) throws -> Int {
        var removed = 0
        for _ in 0..<tombstoneBatchesPerRun {
            let batch = try database.write { connection in
                try ChangeLog().purgeTombstones(before: cutoff, batch: tombstoneBatch, on: connection)
            }
            removed += batch
            if batch < tombstoneBatch { break }
        }
        return removed
    }

    package func stop() {
        timer.cancel()
    }
}
