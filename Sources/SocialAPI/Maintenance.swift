import Auth
import Dispatch
import Telemetry

/// Periodic clean-up while the server runs: expired sessions and lockout records that no
/// longer count. Runs on its own queue, never on a serving thread.
final class Maintenance {
    private let timer: any DispatchSourceTimer

    init(accounts: Accounts, logger: Logger, interval: DispatchTimeInterval = .seconds(600)) {
        let queue = DispatchQueue(label: "pacenote.maintenance", qos: .utility)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(5))
        timer.setEventHandler {
            do {
                let removed = try accounts.purgeExpired()
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
