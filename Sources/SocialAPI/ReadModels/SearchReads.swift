import Auth
import Community
import Storage
import VideoRegistry

/// Search results (API.md "Search"), best match first, each page one read transaction.
struct SearchReads: Sendable {
    let lists: PagedLists

    /// `exactUsername`: the trimmed text, whose exact username match ranks first.
    func users(_ query: SearchQuery, exactUsername: String, for identity: Accounts.Identity?, page: PageRequest) throws -> Page<UserJSON> {
        try lists.page(page,
            fetch: { after, limit, connection in
                try SearchStore().users(query, exactUsername: exactUsername, after: try Positions.search(after), limit: limit, on: connection)
            },
            position: { Positions.search($0.1) },
            present: { rows, connection in try Presenter(identity, connection).users(rows.map(\.0)) })
    }

    func videos(_ query: SearchQuery, for identity: Accounts.Identity?, page: PageRequest) throws -> Page<VideoJSON> {
        try lists.page(page,
            fetch: { after, limit, connection in
                try SearchStore().videos(query, viewer: Viewer(identity), after: try Positions.search(after), limit: limit,
                                         selecting: Presenter.videoSelection(for: identity), on: connection)
            },
            position: { Positions.search($0.1) },
            present: { rows, _ in rows.map(\.0) })
    }
}
