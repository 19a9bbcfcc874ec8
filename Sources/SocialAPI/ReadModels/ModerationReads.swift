import Auth
import Community
import CloudHooks
import Storage
import VideoRegistry

/// What moderators and admins read (API.md "Moderation"): the queue, the log, the outbox's
/// dead letters. The caller is authorized by the route before these are called.
struct ModerationReads: Sendable {
    let lists: PagedLists

    /// Videos with open flags, most flagged first, each with its flags' reasons and who raised them.
    func queue(for identity: Accounts.Identity, page: PageRequest) throws -> Page<QueueItemJSON> {
        let store = ModerationQueueStore()
        return try lists.page(page,
            fetch: { after, limit, connection in
                try store.videos(after: try Positions.top(after), limit: limit, selecting: Presenter.videoSelection(for: identity), on: connection)
            },
            position: { Positions.top($0.video.flagsCount, $0.video.createdAt, $0.video.id) },
            present: { videos, connection in
                let flags = try videos.map { try store.flags(videoID: $0.video.id, on: connection) }
                let users = try Presenter(identity, connection).usersByID(Set(flags.joined().map(\.userID)))
                return zip(videos, flags).map { video, flags in
                    QueueItemJSON(video: video, flags: flags.map { .init(user: users[$0.userID], reason: $0.reason, createdAt: $0.createdAt) })
                }
            })
    }

    /// What moderators did, newest first; `actor` is null for automatic hides.
    func log(for identity: Accounts.Identity, page: PageRequest) throws -> Page<LogEntryJSON> {
        try lists.page(page,
            fetch: { after, limit, connection in try ModerationLogStore().page(after: try Positions.seqOnly(after), limit: limit, on: connection) },
            position: { Positions.seqOnly($0.seq) },
            present: { entries, connection in
                let actors = try Presenter(identity, connection).usersByID(Set(entries.compactMap(\.actorID)))
                return entries.map { LogEntryJSON(entry: $0, actor: $0.actorID.flatMap { actors[$0] }) }
            })
    }

    /// Push and fan-out jobs that failed their last attempt, newest first.
    func deadLetters(page: PageRequest) throws -> Page<OutboxEntryJSON> {
        try lists.page(page,
            fetch: { after, limit, connection in try Outbox().dead(before: try Positions.seqOnly(after), limit: limit, on: connection) },
            position: { Positions.seqOnly($0.seq) },
            present: { entries, _ in entries.map(OutboxEntryJSON.init(entry:)) })
    }
}
