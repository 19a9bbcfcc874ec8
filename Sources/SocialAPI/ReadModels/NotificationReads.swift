import Auth
import Community
import Storage
import VideoRegistry

/// The caller's inbox (API.md "Notifications"), newest first.
struct NotificationReads: Sendable {
    let lists: PagedLists

    func inbox(for me: Accounts.Identity, page: PageRequest) throws -> Page<NotificationJSON> {
        try lists.refreshablePage(page,
            fetch: { from, direction, limit, connection in
                try NotificationStore().page(recipientID: me.userID, viewer: Viewer(me), after: try Positions.seqOnly(from), direction: direction,
                                             limit: limit, on: connection)
            },
            position: { Positions.seqOnly($0.seq) },
            horizon: inboxHorizon(for: me),
            present: { rows, connection in try NotificationJSON.present(rows, for: me, on: connection) })
    }

    /// The inbox is ordered by seq, which a writer takes inside its transaction, after the row's
    /// time: a row settles when it is twice the settle window old (a transaction that took a
    /// smaller seq began no later than this row's and, like it, commits within the window), and
    /// the horizon is the newest seq of a settled row (0 for none), found walking down from
    /// the top of the inbox, past the unsettled rows only.
    private func inboxHorizon(for me: Accounts.Identity) -> RefreshHorizon<NotificationRow> {
        let cutoff = lists.clock.nowMillis() - 2 * RefreshHorizon<NotificationRow>.settleMillis
        return RefreshHorizon(settled: { $0.createdAt <= cutoff }, horizon: { connection in
            [.int(try NotificationStore().newestSeq(recipientID: me.userID, createdAtOrBefore: cutoff, on: connection) ?? 0)]
        }, start: [.int(0)])
    }
}
