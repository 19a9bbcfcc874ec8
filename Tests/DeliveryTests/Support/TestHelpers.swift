import Foundation
import Storage
import Synchronization
import Telemetry

/// A clock the test moves by hand.
final class ManualClock: WallClock {
    private let millis: Mutex<Int64>
    init(millis: Int64 = 1_700_000_000_000) { self.millis = Mutex(millis) }
    func nowMillis() -> Int64 { millis.withLock { $0 } }
    func advance(seconds: Int64) { millis.withLock { $0 += seconds * 1000 } }
}

extension Dictionary where Key == String, Value == Any {
    subscript(path path: String...) -> Any? {
        var current: Any? = self
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }
}
