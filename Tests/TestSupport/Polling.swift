import Foundation

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds pass; returns
/// whether it held. The condition is always evaluated at least once.
public func waitUntil(timeout: Double = 10, interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(useconds_t(interval * 1_000_000))  // the one polling loop: between two looks at the condition
    }
}
