import Foundation

/// SIGTERM and SIGINT handling without signal handlers: the signals are blocked in every
/// thread and the main thread collects them with sigwait(2), so no async-signal-safety
/// rules apply to what happens next.
enum StopSignals {
    private static func set() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        return signals
    }

    /// Blocks the stop signals in the calling thread and in every thread it starts later.
    static func block() {
        var signals = set()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits for SIGTERM or SIGINT; answers its name.
    static func wait() -> String {
        var signals = set()
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received == SIGTERM ? "SIGTERM" : "SIGINT"
    }
}
