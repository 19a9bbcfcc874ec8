import Auth
import Community
import Storage
import Telemetry
import VideoRegistry

/// Why a change-log page is refused; `APIErrors` answers it.
enum SyncError: Error, Equatable {
    /// The token is behind tombstones the purge removed (`ChangeHorizon.expired`): 410
    /// `sync_expired`, and the app starts over without `since`.
    case expired
}

/// `GET /v1/changes` (API.md "Sync"): a page of the change log in one read transaction, each
/// row's op and object decided from the object's state in that snapshot, for this caller.
///
/// The rows come in position order (`ChangeLog.rows`); the page's rallies and videos are then
/// read in one statement each, videos with the presenter's selection and the visibility
/// filter of every `/v1` read, so an object is exactly what `GET /v1/videos/{id}` or
/// `/v1/rallies/{id}` answers this caller, and one it may not see is a `delete`.
struct ChangeReads: Sendable {
    static let defaultLimit = 100
    static let limitRange = 1...500

    let database: any Database
    let codec: CursorCodec
    let rallies: Rallies
    let clock: any WallClock

    /// The changes after `since` (from the beginning when nil), at most `limit`.
    /// - Throws: `SyncError.expired` when `since` is behind the purge.
    func page(since: ChangeToken?, limit: Int, for identity: Accounts.Identity?) throws -> ChangesPageJSON {
        let log = ChangeLog()
        let origin = since?.origin ?? clock.nowMillis()
        let start = since?.position ?? .start
        let today = rallies.today
        return try database.read { connection in
            if let since, try log.horizon(on: connection).expired(position: since.position, origin: since.origin) {
                throw SyncError.expired
            }
            let rows = try log.rows(after: start, limit: limit + 1, on: connection)
            let shown = rows.prefix(limit)
            let videos = try VideoStore().find(ids: Self.live(.video, shown), viewer: Viewer(identity),
                                               selecting: Presenter.videoSelection(for: identity), on: connection)
            let videosByID = Dictionary(videos.map { ($0.video.id, $0) }, uniquingKeysWith: { first, _ in first })
            let ralliesByID = Dictionary(try RallyStore().find(ids: Self.live(.rally, shown), on: connection).map { ($0.id, $0) },
                                         uniquingKeysWith: { first, _ in first })
            let changes = shown.map { row -> ChangeJSON in
                let object: ChangeJSON.Object? = switch row.kind {
                case .video: videosByID[row.objectID].map { .video($0) }
                case .rally: ralliesByID[row.objectID].map { .rally(RallyJSON(rally: $0, today: today)) }
                }
                return ChangeJSON(kind: row.kind, id: row.objectID, object: object)
            }
            // An empty page leaves the reader where it was: nothing is settled past it yet.
            let next = ChangeToken(position: shown.last?.position ?? start, origin: origin)
            return ChangesPageJSON(changes: changes, next: next.encode(codec: codec, callerID: identity?.userID), hasMore: rows.count > limit)
        }
    }

    /// The ids of the rows of `kind` that are not tombstones: the objects to read.
    private static func live(_ kind: ChangeKind, _ rows: ArraySlice<ChangeRow>) -> [String] {
        rows.filter { $0.kind == kind && !$0.deleted }.map(\.objectID)
    }
}
