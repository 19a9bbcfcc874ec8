import Auth
import Community
import Storage
import VideoRegistry

/// The caller's inbox (API.md "Notifications"), newest first.
struct NotificationReads: Sendable {
    let lists: PagedLists

    func inbox(for me: Accounts.Identity, page: PageRequest) throws -> Page<NotificationJSON> {
        try lists.page(page,
            fetch: { after, limit, connection in
                try NotificationStore().page(recipientID: me.userID, viewer: Viewer(me), after: try Positions.seqOnly(after), limit: limit, on: connection)
            },
            position: { Positions.seqOnly($0.seq) },
            present: { rows, connection in try NotificationJSON.present(rows, for: me, on: connection) })
    }
}
