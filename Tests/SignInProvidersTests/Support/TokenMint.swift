import Foundation
import Synchronization
import TestSupport

/// A monotonic clock a test turns by hand (milliseconds).
final class ManualClock: Sendable {
    private let millis = Atomic<Int64>(1_000_000)

    var now: @Sendable () -> Int64 { { [self] in millis.load(ordering: .relaxed) } }

    func advance(seconds: Int64) { millis.add(seconds * 1_000, ordering: .relaxed) }
}

/// How long `body` took, in seconds.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = Date()
    try body()
    return Date().timeIntervalSince(start)
}
