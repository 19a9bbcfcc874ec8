import Auth
import CloudHooks
import Dispatch
import Storage
import Telemetry

/// Periodic clean-up while the server runs: expired sessions, lockout records that no
/// longer count, and outbox jobs finished more than a day ago. Runs on its own queue,
/// never on a serving thread.
final class Maintenance {
    private let timer: any DispatchSourceTimer

    init(database: any Database, accounts: Accounts, logger: Logger, interval: DispatchTimeInterval = .seconds(600)) {
        let queue = DispatchQueue(label: "pacenote.maintenance", qos: .utility)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(5))
        timer.setEventHandler {
            do {
                let removed = try accounts.purgeExpired()
                try database.write { connection in
                    try Outbox().purgeDone(before: SystemClock().nowMillis() - 86_400_000, on: connection)
                }
                if removed > 0 { logger.info("expired sessions removed", ["count": String(removed)]) }
            } catch {
                logger.warning("maintenance failed", ["error": String(describing: error)])
            }
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }
}
