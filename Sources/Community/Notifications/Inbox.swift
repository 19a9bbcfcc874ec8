import Storage
import Telemetry

/// The writes on a user's inbox (API.md "Notifications"); its pages are read by the HTTP
/// adapter's read model.
package struct Inbox: Sendable {
    private let database: any Database
    private let clock: any WallClock
    private let store = NotificationStore()

    package init(database: any Database, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// Marks the recipient's notification `id` and every older one read, in one transaction;
    /// false when `id` names none of theirs.
    package func markRead(recipientID: String, upTo id: String) throws -> Bool {
        try database.write { connection in
            try store.markRead(recipientID: recipientID, upTo: id, now: clock.nowMillis(), on: connection)
        }
    }
}
