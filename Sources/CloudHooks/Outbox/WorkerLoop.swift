import Foundation
import Synchronization

/// The thread of an outbox worker: runs `pass` until stopped, sleeping up to `pollInterval`
/// between passes when `pass` says to (nothing was due, or requests are busy), and at once
/// when woken.
///
/// The thread runs at nice 10, so request threads win the CPU when both are busy.
final class WorkerLoop: Sendable {
    private let running = Mutex(false)
    private let signal = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts the thread unless it runs already. `pass` answers whether to wait before the next one.
    func start(name: String, pollInterval: Double, pass: @escaping @Sendable () -> Bool) {
        let started = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard started else { return }
        let thread = Thread { [self] in
            // PRIO_PROCESS with who = 0 is the calling thread only on Linux (see OffloadPool).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            while running.withLock({ $0 }) {
                if pass() { _ = signal.wait(timeout: .now() + pollInterval) }
            }
            stopped.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Lets the pass in hand finish, then stops the thread and waits for it.
    func stop() {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        signal.signal()
        stopped.wait()
    }

    /// Ends the current wait, so the next pass starts now.
    func wake() {
        signal.signal()
    }
}
