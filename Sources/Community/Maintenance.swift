import Auth
import Dispatch
import Hooks
import Storage
import Telemetry

/// Periodic clean-up while the server runs: expired sessions, lockout records that no
/// longer count, outbox jobs finished more than a day ago, and the like de-duplication
/// marks of pushes older than an hour. Runs on its own queue,
/// never on a serving thread.
package final class Maintenance {
    private let timer: any DispatchSourceTimer

    package init(database: any Database, accounts: Accounts, logger: Logger, interval: DispatchTimeInterval = .seconds(600)) {
        let queue = DispatchQueue(label: "pacenote.maintenance", qos: .utility)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(5))
        timer.setEventHandler {
            do {
                let removed = try accounts.purgeExpired()
                let now = SystemClock().nowMillis()
                try Outbox().purgeDone(before: now - 86_400_000, in: database)
                try database.write { connection in try NotificationStore().purgeRecentPushes(before: now - 3_600_000, on: connection) }
                if removed > 0 { logger.info("expired sessions removed", ["count": String(removed)]) }
            } catch {
                logger.warning("maintenance failed", ["error": String(describing: error)])
            }
        }
        timer.resume()
    }

    package func stop() {
        timer.cancel()
    }
}
