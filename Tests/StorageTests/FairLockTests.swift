import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import SQLiteStorage
@testable import Storage

final class FairLockTests: XCTestCase {
    /// Many threads adding under the lock: none of the increments is lost.
    func testExcludesEveryOtherThread() {
        let lock = FairLock(handoffAfter: .microseconds(50))
        nonisolated(unsafe) var count = 0
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<2_000 {
                lock.withLock { count += 1 }
            }
        }
        XCTAssertEqual(count, 32_000)
    }

    /// A thread that has waited long enough gets the lock at the next unlock, even when the
    /// thread that unlocks asks for it again at once (a plain mutex lets that one win).
    func testTheLongestWaiterIsNotOvertaken() throws {
        let lock = FairLock(handoffAfter: .milliseconds(1))
        let order = Mutex<[String]>([])
        lock.lock()
        let waiter = Thread {
            lock.withLock { order.withLock { $0.append("waiter") } }
        }
        waiter.start()
        _ = waitUntil(timeout: 10, interval: 0.0001) { lock.waiting > 0 }
        XCTAssertEqual(lock.waiting, 1, "the second thread waits for the lock")
        usleep(5_000)  // how long the waiter waits is the behaviour: past the 1 ms handoff threshold
        lock.unlock()
        lock.withLock { order.withLock { $0.append("holder again") } }
        _ = waitUntil(timeout: 10, interval: 0.0001) { order.withLock({ $0.count }) >= 2 }
        XCTAssertEqual(order.withLock { $0 }, ["waiter", "holder again"])
    }
}
